import { listPets } from '../../api/pets.js';
import type { Context } from '../../context.js';
import { renderRows } from '../../render/output.js';
import { dim } from '../../render/style.js';
import { LIMIT_DEFAULT, LIMIT_MAX, LIMIT_MIN, Pet, type PetStatus } from '../../schemas.js';
import * as z from '../../zod.js';
import { defineCommand } from '../define.js';
import { intFlag, statusFlag } from '../flags.js';
import { PET_COLUMNS } from './columns.js';

export interface ListOptions {
  status?: PetStatus;
  limit?: number;
}

export const command = defineCommand({
  name: 'list',
  description: 'List animals',
  flags: {
    status: statusFlag('only animals with this status'),
    limit: {
      flags: '--limit <n>',
      description: `at most n animals, ${LIMIT_MIN}-${LIMIT_MAX} (server default: 20)`,
      schema: z.optional(intFlag('--limit', LIMIT_MIN, LIMIT_MAX)),
    },
  },
  mcp: { access: 'read' },
  output: { shape: 'list', fields: Pet },
  network: true,
  examples: [
    'store pets list',
    'store pets list --status available --limit 50',
    'store pets list --json id,name',
    "store pets list --jq '.[].name'",
  ],
  run,
});

export async function run(opts: ListOptions, ctx: Context): Promise<void> {
  const pets = await listPets(await ctx.api(), { limit: opts.limit, status: opts.status });
  await renderRows(ctx.io, pets, PET_COLUMNS, ctx.options);
  // A person reading a table is told when it may not be everything; a script is not.
  const { io } = ctx;
  if (!io.stdoutIsTTY || ctx.options.json) return;
  const note = listNote(pets.length, opts);
  if (note) io.err(`${dim(note, io.colorErr)}\n`);
}

/** What a terminal is told under a list: that it is empty, or that it may be cut short. */
function listNote(count: number, opts: ListOptions): string | undefined {
  if (count === 0) return 'No animals found';
  const limit = opts.limit ?? LIMIT_DEFAULT;
  if (count !== limit) return undefined;
  const narrow = opts.status === undefined ? ', or narrow it with --status' : '';
  return limit < LIMIT_MAX
    ? `Showing the first ${count}; there may be more: see up to ${LIMIT_MAX} with --limit ${LIMIT_MAX}${narrow}`
    : `Showing the first ${count}; there may be more: the API sends at most ${LIMIT_MAX} at a time${narrow}`;
}
