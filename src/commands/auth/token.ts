import { noKeyError } from '../../config/profile-hints.js';
import type { Context } from '../../context.js';
import { ExitCode } from '../../errors.js';
import { writeJson } from '../../render/output.js';
import * as z from '../../zod.js';
import { defineCommand } from '../define.js';

/** What --json prints: the key itself, unmasked (that is the command). */
const Token = z.object({
  profile: z.string(),
  keySource: z.string(),
  keyStorage: z.nullable(z.string()),
  key: z.string(),
});

export const command = defineCommand({
  name: 'token',
  description: 'Print the API key in use (the only command that shows it unmasked)',
  output: { shape: 'object', fields: Token },
  // No key, or one the keyring no longer holds.
  exitCodes: [ExitCode.auth],
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
    throw noKeyError(profile);
  }
  // --json: one JSON document, as everywhere (the key itself, unmasked: that is the command).
  if (ctx.options.json) {
    const token = {
      profile: profile.name,
      keySource: profile.keySource,
      keyStorage: profile.keyStorage,
      key,
    };
    await writeJson(ctx.io, token satisfies z.infer<typeof Token>, ctx.options);
  } else {
    ctx.io.out(`${key}\n`);
  }
}
