import { loginHint } from '../../config/profile-hints.js';
import type { Context } from '../../context.js';
import { AuthError } from '../../errors.js';
import { writeJson } from '../../render/output.js';
import { defineCommand } from '../define.js';

export const command = defineCommand({
  name: 'token',
  description: 'Print the API key in use (the only command that shows it unmasked)',
  examples: [
    'store auth token',
    'curl -H "Authorization: Bearer $(store auth token)" https://api.animal-store.example/v1/pets',
  ],
  run,
});

export async function run(_opts: object, ctx: Context): Promise<void> {
  const profile = await ctx.profile();
  const key = await ctx.apiKey();
  if (!key) {
    throw new AuthError(`no API key for profile ${profile.name}: ${loginHint(profile)}`);
  }
  // --json: one JSON document, as everywhere (the key itself, unmasked: that is the command).
  if (ctx.options.json) {
    writeJson(ctx.io, {
      profile: profile.name,
      keySource: profile.keySource,
      keyStorage: profile.keyStorage,
      key,
    });
  } else {
    ctx.io.out(`${key}\n`);
  }
}
