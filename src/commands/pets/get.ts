import { getPet } from '../../api/pets.js';
import type { Context } from '../../context.js';
import { renderItem } from '../../render/output.js';
import { type Int64, PET_GET_SUNSET, Pet } from '../../schemas.js';
import { defineCommand } from '../define.js';
import { int64Flag } from '../flags.js';
import { PET_COLUMNS } from './columns.js';

// The service names `GET /pets?status=` as the replacement; it lists, it does not look up by
// id: said as it is, so nobody looks there for a lookup that is not.
const DEPRECATION_WARNING = `warning: 'store pets get' is deprecated and will be removed on ${PET_GET_SUNSET}; use 'store pets list --status <status>' instead`;

export interface GetOptions {
  petId: Int64;
}

export const command = defineCommand({
  name: 'get',
  description: `Show one animal (deprecated: removed on ${PET_GET_SUNSET})`,
  args: { petId: { name: '<petId>', description: 'the animal’s id', schema: int64Flag('petId') } },
  mcp: { access: 'read' },
  output: { shape: 'object', fields: Pet },
  network: true,
  examples: ['store pets get 42', 'store pets get 42 --json'],
  run,
});

export async function run(opts: GetOptions, ctx: Context): Promise<void> {
  // After the profile and key are settled, so a usage error stays a single line.
  const api = await ctx.api();
  ctx.deprecation(DEPRECATION_WARNING);
  const pet = await getPet(api, opts.petId);
  await renderItem(ctx.io, pet, PET_COLUMNS, ctx.options);
}
