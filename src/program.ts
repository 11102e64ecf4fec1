// The command tree. Each command lives in src/commands/<noun>/<verb>.ts and registers
// itself on its noun; global options are declared once here and accepted anywhere.
import { Command } from 'commander';
import * as api from './commands/api.js';
import * as authLogin from './commands/auth/login.js';
import * as authLogout from './commands/auth/logout.js';
import * as authStatus from './commands/auth/status.js';
import * as authToken from './commands/auth/token.js';
import * as completion from './commands/completion.js';
import {
  type CommandDefinition,
  type ContextFactory,
  examples,
  type FlagSpec,
  toOption,
} from './commands/define.js';
import { registerHelp } from './commands/help/help.js';
import { HELP_LAYOUT } from './commands/help/layout.js';
import * as messagesSend from './commands/messages/send.js';
import * as ordersList from './commands/orders/list.js';
import * as petsAdd from './commands/pets/add.js';
import * as petsGet from './commands/pets/get.js';
import * as petsList from './commands/pets/list.js';
import * as profileList from './commands/profile/list.js';
import * as profileRemove from './commands/profile/remove.js';
import * as profileSet from './commands/profile/set.js';
import * as profileUse from './commands/profile/use.js';
import * as sandbox from './commands/sandbox.js';
import { PROFILES } from './completion/hints.js';
import type { IOStreams } from './io.js';
import { version } from './version.js';
import * as z from './zod.js';

interface Noun {
  name: string;
  description: string;
  verbs: CommandDefinition[];
  examples: string[];
}

const NOUNS: Noun[] = [
  {
    name: 'pets',
    description: 'List, add and look up animals',
    verbs: [petsList.command, petsAdd.command, petsGet.command],
    examples: ['store pets list --status available', 'store pets add --name Rex --category-id 1'],
  },
  {
    name: 'messages',
    description: 'Send messages',
    verbs: [messagesSend.command],
    examples: ['store messages send "Restock done"'],
  },
  {
    name: 'orders',
    description: 'List store orders',
    verbs: [ordersList.command],
    examples: ['store orders list --json'],
  },
  {
    name: 'auth',
    description: 'Log in, log out, and show the key in use',
    verbs: [authLogin.command, authLogout.command, authStatus.command, authToken.command],
    examples: ['store auth login', 'store auth status'],
  },
  {
    name: 'profile',
    description: 'Manage profiles (production, staging, sandbox, your own)',
    verbs: [profileList.command, profileUse.command, profileSet.command, profileRemove.command],
    examples: ['store profile list', 'store profile use staging'],
  },
];

/** Commands without a noun: `store sandbox`, `store completion bash`. */
const TOP_LEVEL: CommandDefinition[] = [
  api.command,
  sandbox.command,
  completion.command,
  completion.completeCommand,
];

const text = z.optional(z.string());

/** Accepted before or after any subcommand; main.ts turns them into GlobalOptions. */
export const GLOBAL_FLAGS: Record<string, FlagSpec> = {
  profile: {
    flags: '-p, --profile <name>',
    description: 'profile to use (env: STORE_PROFILE)',
    schema: text,
    complete: PROFILES,
  },
  json: { flags: '--json', description: 'print machine-readable JSON on stdout', schema: text },
  color: { flags: '--no-color', description: 'no ANSI colour (env: NO_COLOR)', schema: text },
  debug: {
    flags: '--debug',
    description: 'trace each HTTP exchange on stderr (env: STORE_DEBUG=1)',
    schema: text,
  },
  timeout: {
    flags: '--timeout <seconds>',
    description: 'per-request time limit in seconds (env: STORE_TIMEOUT)',
    schema: text,
  },
};

export function buildProgram(io: IOStreams, context: ContextFactory): Command {
  const program = new Command('store')
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
  for (const { name, description, verbs, examples: lines } of NOUNS) {
    const noun = program
      .command(name)
      .description(description)
      .addHelpText('after', examples(lines));
    for (const verb of verbs) verb.register(noun, context);
  }
  for (const definition of TOP_LEVEL) definition.register(program, context);
  registerHelp(program, context);
  return program;
}
