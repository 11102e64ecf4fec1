import { listOrders } from '../../api/orders.js';
import type { Context } from '../../context.js';
import { renderAny } from '../../render/output.js';
import { defineCommand } from '../define.js';

export const command = defineCommand({
  name: 'list',
  description: 'List store orders',
  examples: ['store orders list', 'store orders list --json'],
  run,
});

export async function run(_opts: object, ctx: Context): Promise<void> {
  await renderAny(ctx.io, await listOrders(await ctx.api()), ctx.options);
}
