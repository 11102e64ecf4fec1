import { listPets } from '../../api/pets.js';
import { MIN_KEY_SEARCHED, PUBLIC_KEY } from '../../api/redact.js';
import { saveKey, staleEntryWarning } from '../../config/key-store.js';
import { commandFor } from '../../config/profile-hints.js';
import { maskKey } from '../../config/profiles.js';
import type { Context } from '../../context.js';
import { ApiError, FlagError, NetworkError, withHint } from '../../errors.js';
import * as z from '../../zod.js';
import { defineCommand } from '../define.js';
import { reportDone } from '../done.js';
import { switchFlag } from '../flags.js';

export interface LoginOptions {
  withKey: boolean;
  verify: boolean;
  insecureStorage: boolean;
}

export const command = defineCommand({
  name: 'login',
  description: 'Store an API key for the profile, after checking it with the API',
  flags: {
    withKey: switchFlag('--with-key', 'read the key from stdin instead of prompting'),
    verify: switchFlag('--no-verify', 'save the key without checking it', true),
    insecureStorage: switchFlag(
      '--insecure-storage',
      'save the key in config.json (plain text, mode 0600) instead of the system keyring',
    ),
  },
  output: {
    shape: 'object',
    fields: z.object({
      profile: z.string(),
      key: z.string(),
      verified: z.boolean(),
      /** keyring, or file (no keyring could be used, or --insecure-storage). */
      keyStorage: z.string(),
    }),
  },
  network: true,
  examples: [
    'store auth login',
    'echo "$STORE_KEY" | store auth login --with-key',
    'store --profile staging auth login',
    'echo "$STORE_KEY" | store auth login --with-key --insecure-storage',
  ],
  run,
});

/** Far beyond any key: a file given by mistake (or /dev/zero) is not read whole. */
const KEY_ON_STDIN = {
  maxBytes: 64 * 1024,
  tooLarge: 'the key on stdin is over 64 KiB; nothing was saved',
  notText: 'the key on stdin is not UTF-8 text; nothing was saved',
};

export async function run(opts: LoginOptions, ctx: Context): Promise<void> {
  const { io } = ctx;
  const profile = await ctx.profile();
  if (!opts.withKey && !io.stdinIsTTY) {
    // With the profile in use: the command as it is would log in to another one.
    const login = commandFor(profile, 'auth login --with-key');
    throw withHint(
      new FlagError('stdin is not a terminal, and the key is read from it only with --with-key'),
      `pipe the key with \`${login}\``,
    );
  }
  // On a terminal the key is typed, so it is read without echo even with --with-key (which
  // would otherwise show it on the screen as it is typed, with no prompt saying what to type).
  const key = io.stdinIsTTY
    ? (await io.promptSecret(`API key for profile ${profile.name}: `, ctx.signal)).trim()
    : (await io.readStdin(KEY_ON_STDIN, ctx.signal)).trim();
  if (key === '') throw new FlagError('the key is empty; nothing was saved');
  if (/\s/.test(key)) throw new FlagError('the key contains white space; nothing was saved');
  // An HTTP header carries visible ASCII only: any other character could never be sent, and
  // with --no-verify every later command would fail on it.
  if (!/^[\x21-\x7e]+$/.test(key)) {
    throw new FlagError(
      'the key contains a character other than visible ASCII, which no request can carry; nothing was saved',
    );
  }
  // A key this short could be masked where a server echoes it only by hiding ordinary words
  // as well: refused, so that every stored key is one store can keep out of what it shows.
  // (The sandbox's published key is no secret.)
  if (key.length < MIN_KEY_SEARCHED && key !== PUBLIC_KEY) {
    throw new FlagError(
      `the key is ${key.length} character${key.length === 1 ? '' : 's'} long; store takes keys of ${MIN_KEY_SEARCHED} or more, which it can mask wherever a server shows them; nothing was saved`,
    );
  }

  if (opts.verify) await verify(key, ctx);
  const config = await ctx.config();
  const saved = await saveKey(config, profile.name, key, ctx.keyring, {
    insecure: opts.insecureStorage,
    signal: ctx.signal,
  });
  // Said every time a key goes to the file without being asked to: nobody should find out
  // later where their key was.
  if (saved.storage === 'file' && saved.failure !== undefined) {
    ctx.warn(
      `warning: the system keyring cannot be used (${saved.failure}); the key is stored in plain text in ${config.path}`,
    );
  }
  for (const stale of saved.stale) ctx.warn(staleEntryWarning(profile.name, stale));
  // No claim the tool did not check: a key saved unchecked is said to be just that.
  const done = opts.verify
    ? `Logged in to profile ${profile.name} with key ${maskKey(key)}`
    : `Saved key ${maskKey(key)} for profile ${profile.name} without checking it`;
  await reportDone(ctx, done, {
    profile: profile.name,
    key: maskKey(key),
    verified: opts.verify,
    keyStorage: saved.storage,
  });
  if (ctx.env.STORE_API_KEY) {
    ctx.warn('note: STORE_API_KEY is set, and wins over the stored key while it is');
  }
}

/** One authenticated call with the new key; any failure means nothing is saved. */
async function verify(key: string, ctx: Context): Promise<void> {
  try {
    await listPets(await ctx.api({ apiKey: key }), { limit: 1 });
  } catch (error) {
    // The service's own words, as for any answer (its code and status too); what store adds
    // is on the hint line.
    if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
      throw withHint(error, 'the API rejected this key; nothing was saved');
    }
    // The key may be good: the check could not tell (unreachable, 5xx).
    if (error instanceof NetworkError || error instanceof ApiError) {
      withHint(error, 'nothing was saved (--no-verify saves the key without checking it)');
    }
    throw error;
  }
}
