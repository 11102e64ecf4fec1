// `--json [fields]` takes its value only when the next word is meant as one. Commander would
// take any word after it (`store --json pets list` would choose a field "pets"), so every
// --json is written here as `--json=` or `--json=FIELDS` before commander reads the words.
// The next word is the fields when it looks like a list of names and is not the command word
// expected there, nor an argument the command still takes (`profile use --json staging`)
// unless every name in it is one of the command's fields and a later word is left for the
// argument.
import type { Command } from 'commander';
import { outputOf } from './define.js';
import { declaredFields } from './json-output.js';

const FIELD_LIST = /^\s*[A-Za-z_][\w-]*(?:\s*,\s*[A-Za-z_][\w-]*)*\s*$/;
/** Names and commas with a name missing (`id,,name`, `id,`): a list meant, refused as one. */
const BROKEN_LIST = /^[\w\s-]*,[\w\s,-]*$/;

export function normalizeJsonFlag(argv: readonly string[], program: Command): string[] {
  const out: string[] = [];
  let command = program;
  let operands = 0;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === '--') {
      out.push(...argv.slice(i));
      break;
    }
    if (arg === '--json') {
      const next = argv[i + 1];
      if (next !== undefined && takesAsFields(command, operands, next, argv.slice(i + 2))) {
        out.push(`--json=${next}`);
        i += 1;
      } else out.push('--json=');
      continue;
    }
    out.push(arg);
    if (arg.startsWith('-')) {
      // A value of another option is never a command word or an argument.
      if (!arg.includes('=') && takesValue(command, arg) && i + 1 < argv.length) {
        out.push(argv[i + 1] as string);
        i += 1;
      }
      continue;
    }
    const sub = subcommand(command, arg);
    if (sub && operands === 0) command = sub;
    else operands += 1;
  }
  return out;
}

function subcommand(command: Command, word: string): Command | undefined {
  return command.commands.find((sub) => sub.name() === word || sub.aliases().includes(word));
}

function takesValue(command: Command, flag: string): boolean {
  for (let at: Command | null = command; at; at = at.parent) {
    const option = at.options.find((o) => o.long === flag || o.short === flag);
    if (option) return option.required;
  }
  return false;
}

function takesAsFields(command: Command, operands: number, word: string, rest: string[]): boolean {
  if (operands === 0 && subcommand(command, word)) return false;
  // Before any command is named, a word is a field list only when a command follows it
  // (`store --json id,name pets list`); else it is the command, mistyped (`store --json pest`).
  if (operands === 0 && command.commands.length > 0) {
    return FIELD_LIST.test(word) && rest.some((later) => subcommand(command, later) !== undefined);
  }
  const args = command.registeredArguments;
  const room = args.some((arg) => arg.variadic) || operands < args.length;
  // Where no argument can stand, a list with a name missing is the fields, refused as such.
  if (!FIELD_LIST.test(word)) return !room && BROKEN_LIST.test(word);
  if (!room) return true;
  const fields = declaredFields(outputOf(command));
  if (fields === undefined || !word.split(',').every((name) => fields.includes(name.trim()))) {
    return false;
  }
  // Fields only when a later word is left for the argument: `messages send --json status`
  // sends "status", where `profile use --json profile staging` asks for the field.
  return laterOperand(command, rest);
}

/** Whether `rest` holds a word that is neither an option nor an option's value. */
function laterOperand(command: Command, rest: readonly string[]): boolean {
  for (let i = 0; i < rest.length; i += 1) {
    const word = rest[i] as string;
    if (word === '--') return i + 1 < rest.length;
    if (!word.startsWith('-') || word === '-') return true;
    if (!word.includes('=') && takesValue(command, word)) i += 1;
  }
  return false;
}
