import {
  inKeyring,
  keyringAccount,
  removeEntry,
  staleEntryWarning,
} from '../../config/key-store.js';
import { commandFor } from '../../config/profile-hints.js';
import {
  currentProfileName,
  isBuiltin,
  profileNames,
  storedProfile,
  unknownProfileError,
} from '../../config/profiles.js';
import type { Context } from '../../context.js';
import { FlagError, withHint } from '../../errors.js';
import * as z from '../../zod.js';
import { defineCommand } from '../define.js';
import { reportDone } from '../done.js';
import { profileArg } from '../flags.js';

export interface RemoveOptions {
  name: string;
}

export const command = defineCommand({
  name: 'remove',
  description: 'Remove a profile you created, with its stored key',
  args: { name: profileArg('the profile') },
  output: {
    shape: 'object',
    fields: z.object({ profile: z.string(), removed: z.boolean(), current: z.string() }),
  },
  examples: ['store profile remove eu'],
  run,
});

export async function run(opts: RemoveOptions, ctx: Context): Promise<void> {
  if (isBuiltin(opts.name)) {
    // Named with -p: a plain `store auth logout` forgets the current profile's key instead.
    const logout = commandFor({ name: opts.name, source: 'flag' }, 'auth logout');
    throw withHint(
      new FlagError(`"${opts.name}" is a built-in profile and cannot be removed`),
      `\`${logout}\` forgets its key`,
    );
  }
  const config = await ctx.config();
  const before = config.read();
  if (storedProfile(before, opts.name) === undefined) {
    // Only profiles that can be removed are worth suggesting.
    const removable = profileNames(before).filter((name) => !isBuiltin(name));
    throw unknownProfileError(opts.name, removable, undefined, false);
  }
  const wasCurrent = currentProfileName(before) === opts.name;
  const stored = storedProfile(before, opts.name);
  const account = inKeyring(stored) ? keyringAccount(opts.name, stored) : undefined;
  // Its key goes with it, first: a command stopped meanwhile (Ctrl-C, killed) leaves the
  // profile, whose next removal finds the entry, rather than an entry no profile names.
  const stays =
    account === undefined ? undefined : await removeEntry(ctx.keyring, account, ctx.signal);
  const after = await config.update((data) => {
    delete data.profiles?.[opts.name];
    if (data.currentProfile === opts.name) delete data.currentProfile;
  });
  const current = currentProfileName(after);
  await reportDone(
    ctx,
    wasCurrent
      ? `Removed profile ${opts.name}; the current profile is now ${current}`
      : `Removed profile ${opts.name}`,
    { profile: opts.name, removed: true, current },
  );
  if (stays !== undefined && account !== undefined) {
    ctx.warn(staleEntryWarning(opts.name, { account, reason: stays }, 'the key'));
  }
  if (ctx.env.STORE_PROFILE === opts.name) {
    ctx.warn(`note: STORE_PROFILE=${opts.name} names the removed profile; \`unset STORE_PROFILE\``);
  }
}
