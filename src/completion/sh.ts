// What the bash and zsh scripts share: both read the words before the cursor with the same
// case statement, and both keep in `want` what the word under the cursor completes to:
// `w:<words>`, `profiles`, `files` or `none`.
import type { Values } from './hints.js';
import type { CommandSpec, CompletionModel, OptionSpec } from './model.js';

/** Single-quoted: literal in bash and zsh, also inside case patterns. */
export function quote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** The program's name as part of a shell function name. */
export function identifier(name: string): string {
  return name.replace(/[^A-Za-z0-9_]/g, '_');
}

export const pathOf = (command: CommandSpec): string => command.path.join(' ');

export function want(values: Values): string {
  return values.kind === 'words' ? `w:${values.words.join(' ')}` : values.kind;
}

/** Arms of `case "$cmd:$word"`: a subcommand moves cmd on; an option that takes a value sets
 * want, so the next word is skipped as its value; any other word is an argument. */
export function stepArms(model: CompletionModel): string[] {
  const arms: string[] = [];
  for (const command of model.commands) {
    for (const sub of command.subcommands) {
      const patterns = [sub.name, ...sub.aliases].map((name) =>
        quote(`${pathOf(command)}:${name}`),
      );
      arms.push(`${patterns.join('|')}) cmd=${quote([...command.path, sub.name].join(' '))} ;;`);
    }
  }
  // `--json` may come without fields: the word after it is read as any other (the field
  // list is completed where the scripts see `--json` just before the cursor).
  const valueArm = (patterns: string[], option: OptionSpec) =>
    option.values && option.values.kind !== 'json-fields'
      ? [`${patterns.join('|')}) want=${quote(want(option.values))} ;;`]
      : [];
  for (const command of model.commands) {
    for (const option of command.options) {
      arms.push(
        ...valueArm(
          option.flags.map((flag) => quote(`${pathOf(command)}:${flag}`)),
          option,
        ),
      );
    }
  }
  for (const option of model.common) {
    arms.push(
      ...valueArm(
        option.flags.map((flag) => `*${quote(`:${flag}`)}`),
        option,
      ),
    );
  }
  // A lone "=" is bash's piece of `--json=id`, never an argument.
  arms.push('*:-*|*:=) ;;', '*) nargs=$((nargs + 1)) ;;');
  return arms;
}

/** Arms of `case $cmd` that set `fields` to the JSON fields of the command. */
export function jsonFieldArms(model: CompletionModel): string[] {
  return model.commands
    .filter((command) => command.jsonFields.length > 0)
    .map(
      (command) => `${quote(pathOf(command))}) fields=${quote(command.jsonFields.join(' '))} ;;`,
    );
}

/** Indents the lines of a case body. */
export function indent(lines: string[], depth: number): string {
  return lines.map((line) => `${' '.repeat(depth)}${line}`).join('\n');
}
