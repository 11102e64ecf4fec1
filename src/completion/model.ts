// What the completion scripts know, read from the commander program itself: every visible
// command, its options (and whether they take a value) and what its values complete to.
// The shell renderers only turn this model into script text, so a new command or flag is
// completed as soon as it is registered.
import type { Argument, Command, Option } from 'commander';
import { outputOf } from '../commands/define.js';
import { HELP_TOPICS } from '../commands/help/topics.js';
import { declaredFields } from '../commands/json-output.js';
import { argumentValues, optionValues, type Values } from './hints.js';

export interface OptionSpec {
  /** The short and long forms, e.g. ['-p', '--profile']. */
  flags: string[];
  description: string;
  /** What its value completes to; undefined for an option that takes no value. */
  values: Values | undefined;
}

export interface CommandSpec {
  /** The words that lead to it from the program, e.g. ['pets', 'list']; [] for the program. */
  path: string[];
  description: string;
  /** Names and aliases of its visible subcommands (for `help` in the completion scripts:
   * what it takes, see withHelpWalk). */
  subcommands: { name: string; aliases: string[]; description: string }[];
  /** Its options that are not in `common`. */
  options: OptionSpec[];
  /** What each positional argument completes to, by position. */
  arguments: (Values | undefined)[];
  /** The fields `--json` completes to (`--json id,na<TAB>`). */
  jsonFields: string[];
}

export interface CompletionModel {
  name: string;
  commands: CommandSpec[];
  /** Options every command accepts (the global ones and --help): declared once per script. */
  common: OptionSpec[];
}

/** Reads the model from a program, as its --help shows it (hidden commands and options left out). */
export function completionModel(program: Command): CompletionModel {
  const found: { command: Command; path: string[]; options: OptionSpec[] }[] = [];
  const visit = (command: Command, path: string[]) => {
    const help = command.createHelp();
    const options = [...help.visibleOptions(command), ...help.visibleGlobalOptions(command)];
    found.push({ command, path, options: options.map(optionSpec) });
    for (const sub of help.visibleCommands(command)) visit(sub, [...path, sub.name()]);
  };
  visit(program, []);

  const key = (option: OptionSpec) => JSON.stringify([option.flags, option.values]);
  // Commander's implicit `help` commands take no options at all: they do not count.
  const withOptions = found.filter(({ options }) => options.length > 0);
  const everywhere = (option: OptionSpec) =>
    withOptions.every(({ options }) => options.some((other) => key(other) === key(option)));
  const common = (found[0]?.options ?? []).filter(everywhere);
  const commonKeys = new Set(common.map(key));

  const commands = found.map(({ command, path, options }): CommandSpec => {
    const help = command.createHelp();
    return {
      path,
      description: command.description(),
      subcommands: help.visibleCommands(command).map((sub) => ({
        name: sub.name(),
        aliases: sub.aliases(),
        description: sub.description(),
      })),
      options: options.filter((option) => !commonKeys.has(key(option))),
      arguments: command.registeredArguments.map((argument: Argument, index) =>
        argumentValues(program, path, argument, index),
      ),
      jsonFields: declaredFields(outputOf(command)) ?? [],
    };
  });
  return { name: program.name(), commands, common };
}

/**
 * For the completion scripts, `store help pets <TAB>`: the top-level `help` takes a command's
 * path a word at a time, or a help topic. It is given those as subcommands, and each group a
 * `help <group>` whose subcommands are the group's, so that every shell walks it as it walks
 * the commands. (Not for the man page and the README, which list the commands themselves.)
 */
export function withHelpWalk(model: CompletionModel): CompletionModel {
  const { commands } = model;
  const at = (path: string[]) =>
    commands.find((command) => command.path.join(' ') === path.join(' '));
  const top = at(['help']);
  if (!top) return model;
  const targets = (at([])?.subcommands ?? []).filter((sub) => sub.name !== 'help');
  const help: CommandSpec = {
    ...top,
    subcommands: [
      ...targets,
      ...Object.entries(HELP_TOPICS).map(([name, topic]) => ({
        name,
        aliases: [],
        description: topic.summary,
      })),
    ],
  };
  const walked: CommandSpec[] = [];
  for (const target of targets) {
    const group = at([target.name]);
    const verbs = (group?.subcommands ?? []).filter((sub) => sub.name !== 'help');
    if (group && verbs.length > 0) {
      walked.push({
        path: ['help', target.name],
        description: group.description,
        subcommands: verbs,
        options: [],
        arguments: [],
        jsonFields: [],
      });
    }
  }
  return {
    ...model,
    commands: [...commands.map((command) => (command === top ? help : command)), ...walked],
  };
}

function optionSpec(option: Option): OptionSpec {
  const flags = [option.short, option.long].filter((flag): flag is string => !!flag);
  const takesValue = option.required || option.optional;
  return {
    flags,
    description: option.description,
    values: takesValue ? optionValues(option) : undefined,
  };
}

export type Positional = { index: number } & (
  | { subcommands: CommandSpec['subcommands'] }
  | { values: Values }
);

/** What a command's arguments complete to, by position: its subcommands come first. */
export function positionals(command: CommandSpec): Positional[] {
  const found: Positional[] = [];
  if (command.subcommands.length > 0) found.push({ index: 0, subcommands: command.subcommands });
  command.arguments.forEach((values, index) => {
    if (values && values.kind !== 'none' && !found.some((taken) => taken.index === index)) {
      found.push({ index, values });
    }
  });
  return found;
}

/** The command a model path leads to (for generators that need commander's own terms). */
export function commandAt(program: Command, path: readonly string[]): Command {
  let command = program;
  for (const name of path) {
    const next = command
      .createHelp()
      .visibleCommands(command)
      .find((sub) => sub.name() === name);
    if (!next) throw new Error(`no command ${path.join(' ')}`);
    command = next;
  }
  return command;
}
