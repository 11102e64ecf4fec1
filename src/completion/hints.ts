// The one place that says what option and argument values complete to. Commander knows
// whether an option takes a value but not what the value is; choices() would tell it, but
// it also validates, with messages other than flags.ts's, so the hints are kept here.
import type { Argument, Command, Option } from 'commander';
import { HELP_TOPIC_NAMES } from '../commands/help/topics.js';
import { PET_STATUSES } from '../schemas.js';
import { SHELLS } from './shells.js';

export type Values =
  | { kind: 'words'; words: readonly string[] }
  /** Profile names, read from the config when completing (`store __complete profiles`). */
  | { kind: 'profiles' }
  | { kind: 'files' }
  /** A value nobody can guess (a number, a URL, a name): nothing is offered. */
  | { kind: 'none' };

const PROFILES: Values = { kind: 'profiles' };
const FILES: Values = { kind: 'files' };
const NONE: Values = { kind: 'none' };
const words = (list: readonly string[]): Values => ({ kind: 'words', words: list });

/** By long flag, in every command that has an option of that name. */
const OPTION_VALUES: Readonly<Record<string, Values>> = {
  '--status': words(PET_STATUSES),
  '--profile': PROFILES,
  '--file': FILES,
  '--data': FILES,
};

/** By command path and argument name. */
const ARGUMENT_VALUES: Readonly<Record<string, Values>> = {
  'profile use <name>': PROFILES,
  'profile remove <name>': PROFILES,
  'completion <shell>': words(SHELLS),
};

export function optionValues(option: Option): Values {
  if (option.argChoices) return words(option.argChoices);
  return (option.long && OPTION_VALUES[option.long]) || NONE;
}

/** What the index-th argument of the command at `path` completes to, if anything. */
export function argumentValues(
  program: Command,
  path: readonly string[],
  argument: Argument,
  index: number,
): Values | undefined {
  if (argument.argChoices) return words(argument.argChoices);
  // `store help <command>` and commander's `store pets help <command>`: the commands
  // beside it, and at the top the help topics as well.
  if (path.at(-1) === 'help' && index === 0) {
    const parent = path
      .slice(0, -1)
      .reduce<Command | undefined>(
        (command, name) => command?.commands.find((sub) => sub.name() === name),
        program,
      );
    if (!parent) return undefined;
    const siblings = parent
      .createHelp()
      .visibleCommands(parent)
      .map((sub) => sub.name())
      .filter((name) => name !== 'help');
    return words(path.length === 1 ? [...HELP_TOPIC_NAMES, ...siblings] : siblings);
  }
  return ARGUMENT_VALUES[`${path.join(' ')} <${argument.name()}>`];
}
