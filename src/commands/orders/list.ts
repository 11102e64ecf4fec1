import type { Command } from 'commander';
import { listOrders } from '../../api/orders.js';
import type { Context } from '../../context.js';
import { renderAny } from '../../render/output.js';
import * as z from '../../zod.js';
import { action, type ContextFactory } from '../action.js';
import { examples } from '../flags.js';

const Flags = z.object({});

export function register(orders: Command, context: ContextFactory): void {
  orders
    .command('list')
    .description('List store orders')
    .addHelpText('after', examples('store orders list', 'store orders list --json'))
    .action(action(context, Flags, run));
}

export async function run(_opts: object, ctx: Context): Promise<void> {
  await renderAny(ctx.io, await listOrders(await ctx.api()), ctx.options);
}
