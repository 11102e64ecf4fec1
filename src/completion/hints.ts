// What option and argument values complete to. Commander knows whether an option takes a
// value but not what the value is: each command's declaration (commands/define.ts) says it,
// and it is attached to commander's Option or Argument here for the completion model to read.
import type { Argument, Command, Option } from 'commander';

export type Values =
  | { kind: 'words'; words: readonly string[] }
  /** Profile names, read from the config when completing (`store __complete profiles`). */
  | { kind: 'profiles' }
  | { kind: 'files' }
  /** The JSON fields of the command being completed (`--json id,na<TAB>`), comma-separated. */
  | { kind: 'json-fields' }
  /** A value nobody can guess (a number, a URL, a name): nothing is offered. */
  | { kind: 'none' };

export const words = (list: readonly string[]): Values => ({ kind: 'words', words: list });
export const PROFILES: Values = { kind: 'profiles' };
export const FILES: Values = { kind: 'files' };
export const JSON_FIELDS: Values = { kind: 'json-fields' };

const declared = new WeakMap<Option | Argument, Values>();

export function setCompletion(target: Option | Argument, values: Values): void {
  declared.set(target, values);
}

export function optionValues(option: Option): Values {
  if (option.argChoices) return words(option.argChoices);
  return declared.get(option) ?? { kind: 'none' };
}

/** What the index-th argument of the command at `path` completes to, if anything. */
export function argumentValues(
  program: Command,
  path: readonly string[],
  argument: Argument,
  index: number,
): Values | undefined {
  if (argument.argChoices) return words(argument.argChoices);
  // `store help <command>` and commander's `store pets help <command>`: the commands beside
  // it. (After `store help` the scripts also offer the topics and walk on: withHelpWalk.)
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
    return words(siblings);
  }
  return declared.get(argument);
}
