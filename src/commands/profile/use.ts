import type { Command } from 'commander';
import { profileExists, profileNames } from '../../config/profiles.js';
import type { Context } from '../../context.js';
import { FlagError } from '../../errors.js';
import * as z from '../../zod.js';
import { action, type ContextFactory } from '../action.js';
import { examples } from '../flags.js';

export interface UseOptions {
  name: string;
}

const Flags = z.object({ name: z.string() });

export function register(profile: Command, context: ContextFactory): void {
  profile
    .command('use')
    .description('Make a profile the current one')
    .argument('<name>', 'the profile')
    .addHelpText('after', examples('store profile use staging', 'store profile use production'))
    .action(action(context, Flags, run));
}

export async function run(opts: UseOptions, ctx: Context): Promise<void> {
  const config = await ctx.config();
  const data = config.read();
  if (!profileExists(data, opts.name)) {
    throw new FlagError(
      `unknown profile "${opts.name}"; known profiles: ${profileNames(data).join(', ')}`,
    );
  }
  await config.update((next) => {
    next.currentProfile = opts.name;
  });
  ctx.io.err(`Now using profile ${opts.name}\n`);
}
