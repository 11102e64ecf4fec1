import { storedProfile } from '../../config/profiles.js';
import type { Context } from '../../context.js';
import { defineCommand } from '../define.js';
import { reportDone } from '../done.js';

export const command = defineCommand({
  name: 'logout',
  description: 'Forget the stored API key of the profile',
  examples: ['store auth logout', 'store -p staging auth logout'],
  run,
});

export async function run(_opts: object, ctx: Context): Promise<void> {
  const { name } = await ctx.profile();
  const config = await ctx.config();
  if (storedProfile(config.read(), name)?.apiKey === undefined) {
    reportDone(ctx, `No key was stored for profile ${name}`, { profile: name, keyRemoved: false });
    return;
  }
  await config.update((data) => {
    const profile = data.profiles?.[name];
    if (!profile) return;
    delete profile.apiKey;
    if (Object.keys(profile).length === 0) delete data.profiles?.[name];
  });
  reportDone(ctx, `Logged out of profile ${name}`, { profile: name, keyRemoved: true });
  if (ctx.env.STORE_API_KEY) {
    ctx.warn('note: STORE_API_KEY is set: commands still send that key while it is');
  }
}
