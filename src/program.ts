// The command tree. Each command lives in src/commands/<noun>/<verb>.ts and registers
// itself on its noun; global options are declared once here and accepted anywhere.
import { Command } from 'commander';
import type { ContextFactory } from './commands/action.js';
import * as authLogin from './commands/auth/login.js';
import * as authLogout from './commands/auth/logout.js';
import * as authStatus from './commands/auth/status.js';
import * as authToken from './commands/auth/token.js';
import * as completion from './commands/completion.js';
import { examples } from './commands/flags.js';
import * as help from './commands/help/help.js';
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
import type { IOStreams } from './io.js';
import { version } from './version.js';

type Registrar = { register(parent: Command, context: ContextFactory): void };

interface Noun {
  name: string;
  description: string;
  verbs: Registrar[];
  examples: string[];
}

const NOUNS: Noun[] = [
  {
    name: 'pets',
    description: 'List, add and look up animals',
    verbs: [petsList, petsAdd, petsGet],
    examples: ['store pets list --status available', 'store pets add --name Rex --category-id 1'],
  },
  {
    name: 'messages',
    description: 'Send messages',
    verbs: [messagesSend],
    examples: ['store messages send "Restock done"'],
  },
  {
    name: 'orders',
    description: 'List store orders',
    verbs: [ordersList],
    examples: ['store orders list --json'],
  },
  {
    name: 'auth',
    description: 'Log in, log out, and show the key in use',
    verbs: [authLogin, authLogout, authStatus, authToken],
    examples: ['store auth login', 'store auth status'],
  },
  {
    name: 'profile',
    description: 'Manage profiles (production, staging, sandbox, your own)',
    verbs: [profileList, profileUse, profileSet, profileRemove],
    examples: ['store profile list', 'store profile use staging'],
  },
];

export function buildProgram(io: IOStreams, context: ContextFactory): Command {
  const program = new Command('store')
    .description('Work with the animal store: animals, messages, orders, profiles.')
    .version(version(), '-V, --version', 'print the version')
    .helpOption('-h, --help', 'show help for a command')
    .option('-p, --profile <name>', 'profile to use (env: STORE_PROFILE)')
    .option('--json', 'print machine-readable JSON on stdout')
    .option('--no-color', 'no ANSI colour (env: NO_COLOR)')
    .option('--debug', 'trace each HTTP exchange on stderr (env: STORE_DEBUG=1)')
    .option(
      '--timeout <seconds>',
      'per-request time limit in seconds (env: STORE_TIMEOUT)',
      undefined,
    )
    // Settings below are inherited by every subcommand created with .command().
    .exitOverride()
    .configureOutput({
      writeOut: (text) => io.out(text),
      writeErr: (text) => io.err(text),
      // main() reports parse errors itself, in the same format as every other error.
      outputError: () => {},
    })
    .showSuggestionAfterError(true)
    .configureHelp({ showGlobalOptions: true });

  program.addHelpText(
    'after',
    examples(
      'store pets list',
      'store --profile staging pets list --json',
      'store sandbox --seed 20',
    ),
  );
  for (const { name, description, verbs, examples: lines } of NOUNS) {
    const noun = program
      .command(name)
      .description(description)
      .addHelpText('after', examples(...lines));
    for (const verb of verbs) verb.register(noun, context);
  }
  sandbox.register(program, context);
  completion.register(program, context);
  help.register(program, context);
  return program;
}
