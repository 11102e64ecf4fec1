// Connects a commander command to a command's run(opts, ctx): collects its options and
// arguments, validates them with the command's zod schema (exit 2 before anything is
// sent), and hands over the invocation's context.
import type { Command } from 'commander';
import type { Context } from '../context.js';
import type * as z from '../zod.js';
import { parseFlags } from './flags.js';

/** Builds (once) the context of the invocation that is running `command`. */
export type ContextFactory = (command: Command) => Context;

export function action<S extends z.ZodMiniType>(
  context: ContextFactory,
  schema: S,
  run: (opts: z.output<S>, ctx: Context) => Promise<void>,
) {
  return async (...args: unknown[]): Promise<void> => {
    const command = args[args.length - 1] as Command;
    const raw: Record<string, unknown> = { ...command.opts() };
    command.registeredArguments.forEach((argument, i) => {
      raw[argument.name()] = command.processedArgs[i];
    });
    const opts = parseFlags(schema, raw);
    await run(opts, context(command));
  };
}
