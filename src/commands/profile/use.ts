import { urlOverrideNotes } from '../../config/profile-hints.js';
import { profileExists, profileNames, unknownProfileError } from '../../config/profiles.js';
import type { Context } from '../../context.js';
import * as z from '../../zod.js';
import { defineCommand } from '../define.js';
import { reportDone } from '../done.js';
import { profileArg } from '../flags.js';

export interface UseOptions {
  name: string;
}

export const command = defineCommand({
  name: 'use',
  description: 'Make a profile the current one',
  args: { name: profileArg('the profile') },
  output: {
    shape: 'object',
    fields: z.object({
      profile: z.string(),
      current: z.boolean(),
      overriddenBy: z.nullable(z.string()),
    }),
  },
  examples: ['store profile use staging', 'store profile use production'],
  run,
});

export async function run(opts: UseOptions, ctx: Context): Promise<void> {
  const config = await ctx.config();
  const data = config.read();
  if (!profileExists(data, opts.name)) throw unknownProfileError(opts.name, profileNames(data));
  await config.update((next) => {
    next.currentProfile = opts.name;
  });
  // STORE_PROFILE wins over the current profile in every later command of this shell: say
  // so, or they would go elsewhere than this confirmation suggests.
  const fromEnv = ctx.env.STORE_PROFILE;
  const overridden = fromEnv !== undefined && fromEnv !== '' && fromEnv !== opts.name;
  await reportDone(ctx, `Made ${opts.name} the current profile`, {
    profile: opts.name,
    current: true,
    overriddenBy: overridden ? 'STORE_PROFILE' : null,
  });
  const flag = ctx.options.profile;
  if (overridden) {
    ctx.warn(
      `note: STORE_PROFILE=${fromEnv} wins in this shell; \`unset STORE_PROFILE\` to use ${opts.name}`,
    );
  } else if (flag && flag !== opts.name) {
    ctx.warn(
      `note: -p ${flag} applies only to the command it is given with; commands without it use ${opts.name}`,
    );
  }
  for (const note of urlOverrideNotes(ctx.env)) ctx.warn(note);
}
