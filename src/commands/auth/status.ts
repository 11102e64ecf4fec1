import { listPets } from '../../api/pets.js';
import { noKeyError } from '../../config/profile-hints.js';
import {
  type BaseUrlSource,
  type KeyStorage,
  maskKey,
  type ResolvedProfile,
} from '../../config/profiles.js';
import type { Context } from '../../context.js';
import { ApiError, CliError } from '../../errors.js';
import { type Column, renderItem, writeJson } from '../../render/output.js';
import { sanitize } from '../../render/sanitize.js';
import * as z from '../../zod.js';
import { defineCommand } from '../define.js';

/** What it prints under --json. */
const AuthStatusFields = z.object({
  profile: z.string(),
  baseUrl: z.string(),
  baseUrlSource: z.string(),
  keySource: z.string(),
  /** Where the key is kept (keyring, file, env, builtin); null when there is none. */
  keyStorage: z.nullable(z.string()),
  /** Masked; null when there is no key. */
  key: z.nullable(z.string()),
  /** Accepted; false when rejected or there is no key; null when the API could not tell. */
  valid: z.nullable(z.boolean()),
});

export type AuthStatus = z.infer<typeof AuthStatusFields> & {
  baseUrlSource: BaseUrlSource;
  keySource: ResolvedProfile['keySource'];
  keyStorage: KeyStorage | null;
};

// Tab-separated for a script. A terminal gets the lines of describe() instead: a one-row table
// of these needs 84 columns for production's URL, and would cut the URL or drop the key.
const COLUMNS: Column<AuthStatus>[] = [
  { header: 'PROFILE', value: (s) => s.profile },
  { header: 'BASE URL', value: (s) => s.baseUrl },
  { header: 'URL FROM', value: (s) => s.baseUrlSource },
  { header: 'KEY FROM', value: (s) => s.keySource },
  { header: 'KEY STORAGE', value: (s) => s.keyStorage },
  { header: 'KEY', value: (s) => s.key },
  // The verdict, last (shown only when the key was accepted: a failure is the error line).
  { header: 'VALID', value: (s) => (s.valid ? 'yes' : 'no') },
];

export const command = defineCommand({
  name: 'status',
  description: 'Show the profile, where its key comes from, and whether the API accepts it',
  mcp: { access: 'read' },
  output: { shape: 'object', fields: AuthStatusFields },
  network: true,
  examples: ['store auth status', 'store -p staging auth status --json'],
  run,
});

export async function run(_opts: object, ctx: Context): Promise<void> {
  const profile = await ctx.profile();
  let failure: unknown;
  // A keyring entry that is gone is told like no key, after what is known.
  const key = await ctx.apiKey().catch((error: unknown) => {
    failure = error;
    return undefined;
  });
  const status: AuthStatus = {
    profile: profile.name,
    baseUrl: profile.baseUrl,
    baseUrlSource: profile.baseUrlSource,
    keySource: profile.keySource,
    keyStorage: profile.keyStorage,
    key: key ? maskKey(key) : null,
    valid: null,
  };
  if (failure !== undefined) {
    status.valid = false;
  } else if (!key) {
    status.valid = false;
    failure = noKeyError(profile);
  } else {
    try {
      await listPets(await ctx.api(), { limit: 1 });
      status.valid = true;
    } catch (error) {
      failure = error;
      // The service's own words (its code and status too), with the client's hint on where the
      // key came from; which key it was is in the lines above the error.
      if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
        status.valid = false;
      }
    }
  }
  // What is known is printed whatever the verdict: on stdout as JSON, or for a person on
  // stdout when the key was accepted and on stderr, above the error, when it was not.
  if (ctx.options.json) await writeJson(ctx.io, status, ctx.options);
  else if (status.valid === true && ctx.io.stdoutIsTTY)
    ctx.io.out(`${describe(status)}valid    yes\n`);
  else if (status.valid === true) await renderItem(ctx.io, status, COLUMNS, ctx.options);
  else if (failure instanceof CliError) ctx.io.err(describe(status));
  if (failure !== undefined) throw failure;
}

const URL_FROM: Record<BaseUrlSource, string> = { profile: 'profile', env: 'STORE_BASE_URL' };
/** Where the key is, for a person. */
const KEY_AT: Record<KeyStorage, string> = {
  keyring: 'in the system keyring',
  file: 'in config.json',
  env: 'from STORE_API_KEY',
  builtin: 'built in',
};

/** The key, masked, and where it is; where it should be when it cannot be read (a keyring
 * out of reach, its entry gone: the error below says which). */
function keyLine(status: AuthStatus): string {
  if (!status.keyStorage) return 'none';
  if (!status.key)
    return status.keyStorage === 'keyring' ? `? (${KEY_AT.keyring}: not read)` : 'none';
  return `${status.key} (${KEY_AT[status.keyStorage]})`;
}

/** The facts as lines for a person. */
function describe(status: AuthStatus): string {
  const lines = [
    ['profile', status.profile],
    ['base URL', `${status.baseUrl} (from ${URL_FROM[status.baseUrlSource]})`],
    ['key', keyLine(status)],
  ];
  return lines.map(([name, value]) => `${name?.padEnd(9)}${sanitize(value ?? '')}\n`).join('');
}
