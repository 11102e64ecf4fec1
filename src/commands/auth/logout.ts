import { removeKey } from '../../config/key-store.js';
import { BUILTIN_PROFILES } from '../../config/profiles.js';
import type { Context } from '../../context.js';
import * as z from '../../zod.js';
import { defineCommand } from '../define.js';
import { reportDone } from '../done.js';

export const command = defineCommand({
  name: 'logout',
  description: 'Forget the stored API key of the profile (in the keyring and in config.json)',
  output: { shape: 'object', fields: z.object({ profile: z.string(), keyRemoved: z.boolean() }) },
  examples: ['store auth logout', 'store -p staging auth logout'],
  run,
});

export async function run(_opts: object, ctx: Context): Promise<void> {
  const { name } = await ctx.profile();
  const config = await ctx.config();
  if (!(await removeKey(config, name, ctx.keyring, ctx.signal))) {
    await reportDone(ctx, `No key was stored for profile ${name}`, {
      profile: name,
      keyRemoved: false,
    });
    return;
  }
  await reportDone(ctx, `Logged out of profile ${name}`, { profile: name, keyRemoved: true });
  if (ctx.env.STORE_API_KEY) {
    ctx.warn('note: STORE_API_KEY is set: commands still send that key while it is');
  } else if (BUILTIN_PROFILES[name]?.apiKey !== undefined) {
    // The sandbox's: its commands still work, with the key a local sandbox takes.
    ctx.warn(`note: profile ${name} sends its built-in key again`);
  }
}
