// What to type about the profile in use, for hints in error messages: commands that can be
// pasted into a shell as they are. Kept apart from profiles.ts, which shell completion loads.
import { withoutUserinfo } from '../api/urls.js';
import { AuthError, withHint } from '../errors.js';
import type { ResolvedProfile } from './profiles.js';
import { quote, shellWord } from './quote.js';

/** `-p NAME` as typed in a shell: a name outside PROFILE_NAME (a hand-written config's) is
 * quoted where the shell would read it otherwise. */
function profileFlag(name: string): string {
  return `-p ${shellWord(name)}`;
}

/**
 * `store … <words>` that acts on the profile in use, to copy and paste: `-p NAME` is written
 * out when the profile came from -p or STORE_PROFILE, so the command does the same in a shell
 * without them; the config's current profile is what a plain `store …` uses anyway.
 */
export function commandFor(
  profile: Pick<ResolvedProfile, 'name' | 'source'>,
  words: string,
): string {
  const explicit = profile.source === 'flag' || profile.source === 'env';
  return `store ${explicit ? `${profileFlag(profile.name)} ` : ''}${words}`;
}

/** What to do about a missing key: `run \`store -p sb auth login\` or set STORE_API_KEY`. */
export function loginHint(profile: Pick<ResolvedProfile, 'name' | 'source'>): string {
  return `run \`${commandFor(profile, 'auth login')}\` or set STORE_API_KEY`;
}

/** The profile has no key: what to do about it on the `hint:` line. */
export function noKeyError(profile: Pick<ResolvedProfile, 'name' | 'source'>): AuthError {
  return withHint(new AuthError(`no API key for profile ${profile.name}`), loginHint(profile));
}

/** Said after a 401/403: where the rejected key came from, or how to replace it. */
export function rejectedKeyHint(
  profile: Pick<ResolvedProfile, 'name' | 'source' | 'keySource'>,
): string {
  if (profile.keySource === 'env') return 'the key came from STORE_API_KEY';
  return `to store a new key for profile ${profile.name}, run \`${commandFor(profile, 'auth login')}\``;
}

/** The URL variables that win over any profile's URLs, in the order they are told. */
const URL_VARIABLES = ['STORE_BASE_URL', 'STORE_MESSAGES_URL'] as const;

/**
 * Notes for `profile use` and `profile list`: a URL variable set in this shell sends every
 * command elsewhere than the profile they name or list. (Its user and password, if any, are not
 * repeated.)
 */
export function urlOverrideNotes(env: Record<string, string | undefined>): string[] {
  return URL_VARIABLES.filter((name) => env[name]).map(
    (name) =>
      `note: ${name}=${quote(withoutUserinfo(env[name] as string))} wins over the profile's URL in this shell; \`unset ${name}\` to use it`,
  );
}
