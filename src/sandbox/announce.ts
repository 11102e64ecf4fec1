// What `store sandbox` tells the rest of the machine: a record in the config folder (so that
// `store -p sandbox …` reaches it on any port, see config/sandbox-record.ts) and the line
// naming the command to use.
import { isLoopbackHost, requestRoot } from '../api/urls.js';
import { configDir } from '../config/dir.js';
import { BUILTIN_PROFILES } from '../config/profiles.js';
import { shellWord } from '../config/quote.js';
import { publishSandbox } from '../config/sandbox-record.js';
import type { Env } from '../env.js';
import { messageOf } from '../errors.js';

export interface Announcement {
  /** E.g. `Sandbox ready: store -p sandbox pets list`. */
  readyLine: string;
  /** Takes the record out; another sandbox's stays. */
  withdraw(): Promise<void>;
}

/** What `store -p sandbox` would send to, and with: its base URL and key (the record, the
 * config and the environment taken into account). */
export type SandboxReach = () => Promise<{ baseUrl: string; apiKey: string | undefined }>;

export async function announceSandbox(
  env: Env,
  url: string,
  apiKey: string,
  warn: (line: string) => void,
  reaches?: SandboxReach,
): Promise<Announcement> {
  const builtin = BUILTIN_PROFILES.sandbox;
  let withdraw = async () => {};
  let recorded = false;
  // The record is only ever read for a loopback URL: the key must not go elsewhere.
  if (isLoopbackHost(new URL(url).hostname)) {
    let dir: string | undefined;
    try {
      const found = configDir(env);
      dir = found;
      const published = await publishSandbox(found, url);
      recorded = true;
      withdraw = async () => {
        try {
          await published.remove();
        } catch (error) {
          warn(`warning: could not remove the sandbox record in ${found}: ${messageOf(error)}`);
        }
      };
    } catch (error) {
      const where = dir === undefined ? '' : ` in ${dir}`;
      warn(
        `warning: could not record the sandbox${where} (${messageOf(error)}); \`store -p sandbox\` will not find it on another port`,
      );
    }
  }
  // Where `-p sandbox` goes now: elsewhere when the profile's base URL was set, STORE_BASE_URL
  // is exported, or the record could not be written; with another key when one is stored for
  // the profile, or STORE_API_KEY is exported. Unknown (a config that cannot be read): as built in.
  let reached: Awaited<ReturnType<SandboxReach>> | undefined;
  try {
    reached = await reaches?.();
  } catch {
    reached = undefined;
  }
  // (The sandbox's own URL always parses: a URL the client refuses never equals it.)
  const urlNeeded = reached
    ? requestRoot(reached.baseUrl) !== requestRoot(url)
    : !recorded && url !== builtin?.baseUrl;
  const keyNeeded = reached ? reached.apiKey !== apiKey : apiKey !== builtin?.apiKey;
  const prefix = [
    ...(urlNeeded ? [`STORE_BASE_URL=${shellWord(url)}`] : []),
    ...(keyNeeded ? [`STORE_API_KEY=${shellWord(apiKey)}`] : []),
  ];
  return {
    readyLine: `Sandbox ready: ${[...prefix, 'store -p sandbox pets list'].join(' ')}`,
    withdraw,
  };
}
