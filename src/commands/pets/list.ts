import type { Command } from 'commander';
import { listPets } from '../../api/pets.js';
import type { Context } from '../../context.js';
import { renderRows } from '../../render/output.js';
import { LIMIT_MAX, LIMIT_MIN, PET_STATUSES, type PetStatus } from '../../schemas.js';
import * as z from '../../zod.js';
import { action, type ContextFactory } from '../action.js';
import { examples, intFlag, statusFlag } from '../flags.js';
import { PET_COLUMNS } from './columns.js';

export interface ListOptions {
  status?: PetStatus;
  limit?: number;
}

const Flags = z.object({
  status: z.optional(statusFlag),
  limit: z.optional(intFlag('--limit', LIMIT_MIN, LIMIT_MAX)),
});

export function register(pets: Command, context: ContextFactory): void {
  pets
    .command('list')
    .description('List animals')
    .option('--status <status>', `only animals with this status (${PET_STATUSES.join(', ')})`)
    .option('--limit <n>', `at most n animals, ${LIMIT_MIN}-${LIMIT_MAX} (server default: 20)`)
    .addHelpText(
      'after',
      examples(
        'store pets list',
        'store pets list --status available --limit 50',
        "store pets list --json | jq '.[].name'",
      ),
    )
    .action(action(context, Flags, run));
}

export async function run(opts: ListOptions, ctx: Context): Promise<void> {
  const pets = await listPets(await ctx.api(), { limit: opts.limit, status: opts.status });
  await renderRows(ctx.io, pets, PET_COLUMNS, ctx.options);
}
