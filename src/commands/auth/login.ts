import { listPets } from '../../api/pets.js';
import { maskKey } from '../../config/profiles.js';
import type { Context } from '../../context.js';
import { ApiError, AuthError, FlagError } from '../../errors.js';
import { defineCommand } from '../define.js';
import { switchFlag } from '../flags.js';

export interface LoginOptions {
  withKey: boolean;
  verify: boolean;
}

export const command = defineCommand({
  name: 'login',
  description: 'Store an API key for the profile, after checking it with the API',
  flags: {
    withKey: switchFlag('--with-key', 'read the key from stdin instead of prompting'),
    verify: switchFlag('--no-verify', 'save the key without checking it', true),
  },
  examples: [
    'store auth login',
    'echo "$STORE_KEY" | store auth login --with-key',
    'store --profile staging auth login',
  ],
  run,
});

export async function run(opts: LoginOptions, ctx: Context): Promise<void> {
  const { io } = ctx;
  if (!opts.withKey && !io.stdinIsTTY) {
    throw new FlagError('stdin is not a terminal: pipe the key with `store auth login --with-key`');
  }
  const profile = await ctx.profile();
  const key = opts.withKey
    ? (await io.readStdin(ctx.signal)).trim()
    : (await io.promptSecret(`API key for profile ${profile.name}: `, ctx.signal)).trim();
  if (key === '') throw new FlagError('the key is empty; nothing was saved');
  if (/\s/.test(key)) throw new FlagError('the key contains white space; nothing was saved');

  if (opts.verify) {
    try {
      await listPets(await ctx.api({ apiKey: key }), { limit: 1 });
    } catch (error) {
      if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
        throw new AuthError(
          `the API rejected the key (HTTP ${error.status}); nothing was saved`,
          error.status,
        );
      }
      throw error;
    }
  }
  const config = await ctx.config();
  await config.update((data) => {
    data.profiles ??= {};
    data.profiles[profile.name] = { ...data.profiles[profile.name], apiKey: key };
  });
  io.err(`Logged in to profile ${profile.name} with key ${maskKey(key)}\n`);
  if (ctx.env.STORE_API_KEY) {
    ctx.warn('note: STORE_API_KEY is set, and wins over the stored key while it is');
  }
}
