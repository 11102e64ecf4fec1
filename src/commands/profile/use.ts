import { profileExists, profileNames } from '../../config/profiles.js';
import type { Context } from '../../context.js';
import { FlagError } from '../../errors.js';
import { defineCommand } from '../define.js';
import { profileArg } from '../flags.js';

export interface UseOptions {
  name: string;
}

export const command = defineCommand({
  name: 'use',
  description: 'Make a profile the current one',
  args: { name: profileArg('the profile') },
  examples: ['store profile use staging', 'store profile use production'],
  run,
});

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
