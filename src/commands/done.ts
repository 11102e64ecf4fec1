// What a command that changes local state (profiles, stored keys) says when it is done: one
// line on stderr for a person, or under --json one JSON object on stdout for a script.
import type { Context } from '../context.js';
import { writeJson } from '../render/output.js';
import { sanitize } from '../render/sanitize.js';

export async function reportDone(
  ctx: Context,
  line: string,
  data: Record<string, unknown>,
): Promise<void> {
  if (ctx.options.json) await writeJson(ctx.io, data, ctx.options);
  else ctx.io.err(`${sanitize(line)}\n`);
}
