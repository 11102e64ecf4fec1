import { isBuiltin, storedProfile } from '../../config/profiles.js';
import type { Context } from '../../context.js';
import { FlagError } from '../../errors.js';
import { defineCommand } from '../define.js';
import { profileArg } from '../flags.js';

export interface RemoveOptions {
  name: string;
}

export const command = defineCommand({
  name: 'remove',
  description: 'Remove a profile you created, with its stored key',
  args: { name: profileArg('the profile') },
  examples: ['store profile remove eu'],
  run,
});

export async function run(opts: RemoveOptions, ctx: Context): Promise<void> {
  if (isBuiltin(opts.name)) {
    throw new FlagError(
      `"${opts.name}" is a built-in profile and cannot be removed (\`store auth logout\` forgets its key)`,
    );
  }
  const config = await ctx.config();
  if (storedProfile(config.read(), opts.name) === undefined) {
    throw new FlagError(`unknown profile "${opts.name}"`);
  }
  await config.update((data) => {
    delete data.profiles?.[opts.name];
    if (data.currentProfile === opts.name) delete data.currentProfile;
  });
  ctx.io.err(`Removed profile ${opts.name}\n`);
}
