// `store help [topic | command...]`: commander's help command, plus the help topics and a
// "did you mean" for a name that is neither.
import type { Command } from 'commander';
import { quote } from '../../config/quote.js';
import type { Context } from '../../context.js';
import { FlagError } from '../../errors.js';
import { commandReference } from '../../reference/commands.js';
import { writeJson } from '../../render/output.js';
import * as z from '../../zod.js';
import { type ContextFactory, defineCommand } from '../define.js';
import { definitions, helpWidth } from './layout.js';
import { closest } from './suggest.js';
import { HELP_TOPIC_NAMES, HELP_TOPICS } from './topics.js';

export interface HelpOptions {
  name: string[];
}

export const command = defineCommand({
  name: 'help',
  description: `Show help for a command, or a topic: ${HELP_TOPIC_NAMES.join(', ')}`,
  args: {
    name: {
      name: '[name...]',
      description: 'a topic, or a command such as "pets list"',
      schema: z.array(z.string()),
    },
  },
  // `store help --json`: every command described for a program (src/reference/commands.ts).
  output: { shape: 'any' },
  examples: [
    'store help exit-codes',
    'store help pets list',
    'store help environment',
    "store help --jq '.commands[].path'",
  ],
  run: (opts, ctx, invoked) => run(opts, ctx, invoked.parent ?? invoked),
});

/** Replaces commander's implicit `help [command]` of the program (`store pets help` stays),
 * and lists the help topics under the program's own help. */
export function registerHelp(program: Command, context: ContextFactory): void {
  program.helpCommand(false);
  command.register(program, context);
  const rows = HELP_TOPIC_NAMES.map(
    (name) => [`store help ${name}`, HELP_TOPICS[name]?.summary ?? ''] as const,
  );
  // Commander ends each text with a newline; the blank line matches the examples above it.
  program.addHelpText(
    'after',
    ({ error, command }) => `Help topics:\n${definitions(rows, helpWidth(command, error))}\n`,
  );
}

export async function run(opts: HelpOptions, ctx: Context, program: Command): Promise<void> {
  const [first, ...rest] = opts.name;
  if (ctx.options.json) {
    await writeJson(ctx.io, reference(program, opts.name), ctx.options);
    return;
  }
  if (first !== undefined && Object.hasOwn(HELP_TOPICS, first)) {
    // A topic has no parts: `store help environment extra` was "did you mean environment?".
    if (rest.length > 0) {
      throw new FlagError(`help topic ${first} takes no more words (got ${quote(rest.join(' '))})`);
    }
    ctx.io.out(HELP_TOPICS[first]?.render(ctx.io.columns) ?? '');
    return;
  }
  let command = program;
  for (const [index, name] of opts.name.entries()) {
    if (index > 0 && command.commands.length === 0) {
      const extra = quote(opts.name.slice(index).join(' '));
      throw new FlagError(
        `${opts.name.slice(0, index).join(' ')} has no subcommands (got ${extra})`,
      );
    }
    const next = command.commands.find(
      (sub) => sub.name() === name || sub.aliases().includes(name),
    );
    if (!next) throw unknownName(command, opts.name.slice(0, index + 1), index === 0);
    command = next;
  }
  command.outputHelp();
}

/** Every command described, or those under the words given (`store help pets --json`). */
function reference(program: Command, words: readonly string[]): unknown {
  const all = commandReference(program) as { commands: { path: string }[] };
  if (words.length === 0) return all;
  const typed = words.join(' ');
  const commands = all.commands.filter(
    (command) => command.path === typed || command.path.startsWith(`${typed} `),
  );
  if (commands.length === 0) {
    throw new FlagError(`store help --json describes commands; "${typed}" is not one`);
  }
  return { ...all, commands };
}

function unknownName(parent: Command, words: string[], topLevel: boolean): FlagError {
  const commands = parent
    .createHelp()
    .visibleCommands(parent)
    .map((sub) => sub.name())
    .filter((name) => name !== 'help');
  const typed = words.join(' ');
  const what = topLevel ? 'help topic' : 'command';
  const guess = closest(
    words.at(-1) ?? '',
    topLevel ? [...HELP_TOPIC_NAMES, ...commands] : commands,
  );
  if (guess) {
    const meant = [...words.slice(0, -1), guess].join(' ');
    return new FlagError(`unknown ${what} ${quote(typed)} (did you mean ${quote(meant)}?)`);
  }
  return new FlagError(
    topLevel
      ? `unknown help topic ${quote(typed)}; topics: ${HELP_TOPIC_NAMES.join(', ')}; commands: ${commands.join(', ')}`
      : `unknown command ${quote(typed)}; commands of ${parent.name()}: ${commands.join(', ')}`,
  );
}
