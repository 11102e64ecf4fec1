// Profile names for the completion scripts (`store __complete profiles`), on every TAB: so
// config.json is read with node:fs and JSON.parse alone, nothing validated, nothing written,
// no conf, no zod. A config that cannot be read, or is not trusted (a link, a FIFO, another
// user's), still completes the built-in profiles at once; the error shows when a command
// uses it.
const { join } = process.getBuiltinModule('node:path');

import { configDir } from '../config/dir.js';
import type { ConfigData } from '../config/file.js';
import { profileNames } from '../config/profiles.js';
import { readTrustedConfig } from '../config/trust.js';
import type { Env } from '../env.js';

const isObject = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The built-in profiles, then those in the config folder’s config.json. */
function completionProfiles(env: Env): string[] {
  let data: unknown;
  try {
    // No config folder to be found (no home folder) is one more config that cannot be read.
    const dir = configDir(env);
    const { text } = readTrustedConfig(dir, join(dir, 'config.json'));
    data = text === undefined ? undefined : JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch {
    data = undefined;
  }
  const profiles = isObject(data) && isObject(data.profiles) ? data.profiles : {};
  // Only the names are used: the values need not be valid profiles.
  return profileNames({ profiles: profiles as ConfigData['profiles'] });
}

/** What `store __complete profiles` prints: one profile name per line. */
export function profileCompletions(env: Env): string {
  return completionProfiles(env)
    .map((name) => `${name}\n`)
    .join('');
}
