import { listOrders } from '../../api/orders.js';
import type { Context } from '../../context.js';
import { renderAny } from '../../render/output.js';
import { dim } from '../../render/style.js';
import { defineCommand } from '../define.js';

export const command = defineCommand({
  name: 'list',
  description: 'List store orders',
  mcp: { access: 'read' },
  output: { shape: 'any' },
  network: true,
  examples: ['store orders list', 'store orders list --json'],
  run,
});

export async function run(_opts: object, ctx: Context): Promise<void> {
  const orders = await listOrders(await ctx.api());
  await renderAny(ctx.io, orders, ctx.options);
  // An empty list prints nothing but `[]` under --json; a terminal is told, as for animals.
  const { io } = ctx;
  if (io.stdoutIsTTY && !ctx.options.json && Array.isArray(orders) && orders.length === 0) {
    io.err(`${dim('No orders found', io.colorErr)}\n`);
  }
}
