// The command tree. Each command lives in src/commands/<noun>/<verb>.ts, is loaded when the
// invocation names it (or when all are wanted: help, completion, the generators) and registers
// itself on its noun; global options are declared once here and accepted anywhere.
import type { Command } from 'commander';
import type { ScannedArgv } from './argv.js';
import {
  type CommandDefinition,
  type ContextFactory,
  examples,
  type FlagSpec,
  toOption,
} from './commands/define.js';
import { withRule } from './commands/flags.js';
import { HELP_LAYOUT } from './commands/help/layout.js';
import { StoreCommand } from './commands/store-command.js';
import { JSON_FIELDS, PROFILES } from './completion/hints.js';
import type { IOStreams } from './io.js';
import { TIMEOUT_RULE } from './timeout.js';
import { version } from './version.js';
import * as z from './zod.js';

/** A command module, loaded when its command is wanted: each builds its flags' schemas and
 * its commander command when loaded, and `store pets list` needs only its own. The key is the command's name, which the module's
 * declaration must match. */
type Loader = () => Promise<{ command: CommandDefinition }>;

export interface Noun {
  name: string;
  description: string;
  verbs: Record<string, Loader>;
  examples: string[];
}

const NOUNS: Noun[] = [
  {
    name: 'pets',
    description: 'List, add and look up animals',
    verbs: {
      list: () => import('./commands/pets/list.js'),
      add: () => import('./commands/pets/add.js'),
      get: () => import('./commands/pets/get.js'),
    },
    examples: ['store pets list --status available', 'store pets add --name Rex --category-id 1'],
  },
  {
    name: 'messages',
    description: 'Send messages',
    verbs: { send: () => import('./commands/messages/send.js') },
    examples: ['store messages send "Restock done"'],
  },
  {
    name: 'orders',
    description: 'List store orders',
    verbs: { list: () => import('./commands/orders/list.js') },
    examples: ['store orders list --json'],
  },
  {
    name: 'auth',
    description: 'Log in, log out, and show the key in use',
    verbs: {
      login: () => import('./commands/auth/login.js'),
      logout: () => import('./commands/auth/logout.js'),
      status: () => import('./commands/auth/status.js'),
      token: () => import('./commands/auth/token.js'),
    },
    examples: ['store auth login', 'store auth status'],
  },
  {
    name: 'profile',
    description: 'Manage profiles (production, staging, sandbox, your own)',
    verbs: {
      list: () => import('./commands/profile/list.js'),
      use: () => import('./commands/profile/use.js'),
      set: () => import('./commands/profile/set.js'),
      remove: () => import('./commands/profile/remove.js'),
    },
    examples: ['store profile list', 'store profile use staging'],
  },
];

/** Commands without a noun: `store sandbox`, `store completion bash`. */
const TOP_LEVEL = async (): Promise<CommandDefinition[]> => {
  const [api, sandbox, mcp, completion] = await Promise.all([
    import('./commands/api.js'),
    import('./commands/sandbox.js'),
    import('./commands/mcp.js'),
    import('./commands/completion.js'),
  ]);
  return [
    api.command,
    sandbox.command,
    mcp.command,
    completion.command,
    completion.completeCommand,
  ];
};

const text = z.optional(z.string());

/** Accepted before or after any subcommand; main.ts turns them into GlobalOptions. */
export const GLOBAL_FLAGS: Record<string, FlagSpec> = {
  profile: {
    flags: '-p, --profile <name>',
    description: 'profile to use (env: STORE_PROFILE)',
    schema: text,
    complete: PROFILES,
  },
  json: {
    flags: '--json [fields]',
    description:
      'print machine-readable JSON on stdout; with fields (id,name), only those keys of each object',
    schema: z.optional(z.union([z.string(), z.boolean()])),
    complete: JSON_FIELDS,
  },
  jq: {
    flags: '--jq <expression>',
    description: 'filter the JSON through a jq expression; strings printed raw (implies --json)',
    schema: text,
  },
  color: { flags: '--no-color', description: 'no ANSI colour (env: NO_COLOR)', schema: text },
  debug: {
    flags: '--debug',
    description: 'trace each HTTP exchange on stderr (env: STORE_DEBUG=1)',
    schema: text,
  },
  timeout: {
    flags: '--timeout <seconds>',
    description: 'per-request time limit in seconds (env: STORE_TIMEOUT)',
    schema: withRule(z.optional(z.string()), TIMEOUT_RULE, 'number'),
  },
};

/** The commands a program is built with: each noun with the verbs loaded, and the top-level
 * commands and `help` when all of it was loaded. */
export interface CommandSet {
  nouns: { noun: Noun; verbs: CommandDefinition[] }[];
  topLevel: CommandDefinition[];
  /** `store help` and its topics: with the whole tree only (their text is long), so its
   * presence says the whole tree was loaded. */
  help?: typeof import('./commands/help/help.js');
}

/**
 * Every command; or, given the invocation's arguments when they name one command of a noun
 * (`pets list`), that command alone: nothing else is loaded.
 */
export async function loadCommands(scan?: ScannedArgv): Promise<CommandSet> {
  const wanted = scan && invokedVerb(scan);
  const nouns = await Promise.all(
    NOUNS.filter((noun) => !wanted || wanted.noun === noun).map(async (noun) => {
      const names = Object.keys(noun.verbs).filter((name) => !wanted || wanted.verb === name);
      return { noun, verbs: await Promise.all(names.map((name) => load(noun, name))) };
    }),
  );
  if (wanted) return { nouns, topLevel: [] };
  const [topLevel, help] = await Promise.all([TOP_LEVEL(), import('./commands/help/help.js')]);
  return { nouns, topLevel, help };
}

/** The commander program of `commands`. */
export function buildProgram(
  io: IOStreams,
  context: ContextFactory,
  commands: CommandSet,
): Command {
  const program = rootCommand(io);
  for (const { noun, verbs } of commands.nouns) {
    const command = program
      .command(noun.name)
      .description(noun.description)
      // commander's own words for it ("display help for command") are not in store's voice.
      .helpCommand('help [command]', 'Show help for a command')
      .addHelpText('after', examples(noun.examples));
    for (const verb of verbs) verb.register(command, context);
  }
  for (const definition of commands.topLevel) definition.register(program, context);
  commands.help?.registerHelp(program, context);
  return program;
}

async function load(noun: Noun, name: string): Promise<CommandDefinition> {
  const { command } = await (noun.verbs[name] as Loader)();
  if (command.name !== name) {
    throw new Error(`${noun.name} ${name} is declared as "${command.name}"`);
  }
  return command;
}

/** The global flags whose next word is their value (`-p staging`, `--timeout 5`). */
export function globalValueFlags(): ReadonlySet<string> {
  return new Set(
    Object.values(GLOBAL_FLAGS)
      .filter((flag) => flag.flags.includes('<'))
      .flatMap((flag) => flag.flags.split(/[ ,]+/).filter((word) => word.startsWith('-'))),
  );
}

/** The noun and verb the arguments name; none when they name something else (help, a
 * top-level command, a typo: all is loaded then). */
function invokedVerb(scan: ScannedArgv): { noun: Noun; verb: string } | undefined {
  if (scan.help) return undefined;
  const [first, verb] = scan.words;
  const noun = NOUNS.find((candidate) => candidate.name === first);
  return noun && verb !== undefined && Object.hasOwn(noun.verbs, verb) ? { noun, verb } : undefined;
}

function rootCommand(io: IOStreams): Command {
  const program = new StoreCommand('store')
    .description('Work with the animal store: animals, messages, orders, profiles.')
    .version(version(), '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help for a command');
  for (const [key, flag] of Object.entries(GLOBAL_FLAGS)) program.addOption(toOption(key, flag));
  program
    // Settings below are inherited by every subcommand created with .command().
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.out(text),
      writeErr: (text) => io.err(text),
      // main() reports parse errors itself, in the same format as every other error.
      outputError: () => {},
      // Help is laid out for the terminal it is read on (COLUMNS wins), 80 columns in a pipe.
      getOutHelpWidth: () => io.columns,
      getErrHelpWidth: () => io.columns,
    })
    .showSuggestionAfterError(true)
    .configureHelp({ showGlobalOptions: true, ...HELP_LAYOUT });

  program.addHelpText(
    'after',
    examples([
      'store pets list',
      'store --profile staging pets list --json',
      'store sandbox --seed 20',
    ]),
  );
  return program;
}
