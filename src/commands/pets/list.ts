import { listPets } from '../../api/pets.js';
import type { Context } from '../../context.js';
import { renderRows } from '../../render/output.js';
import { LIMIT_MAX, LIMIT_MIN, type PetStatus } from '../../schemas.js';
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
  examples: [
    'store pets list',
    'store pets list --status available --limit 50',
    "store pets list --json | jq '.[].name'",
  ],
  run,
});

export async function run(opts: ListOptions, ctx: Context): Promise<void> {
  const pets = await listPets(await ctx.api(), { limit: opts.limit, status: opts.status });
  await renderRows(ctx.io, pets, PET_COLUMNS, ctx.options);
}
