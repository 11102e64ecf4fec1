// The command that resumes a bulk import where it stopped: the one that ran, with its own
// flags and `--skip N`, written to be pasted into a shell as it is.
import { commandFor } from '../config/profile-hints.js';
import type { ResolvedProfile } from '../config/profiles.js';
import { shellWord } from '../config/quote.js';
import type { GlobalOptions } from '../context.js';
import type { Env } from '../env.js';
import { DEFAULT_TIMEOUT_SECONDS, timeoutMs } from '../timeout.js';
import { DEFAULT_CONCURRENCY } from './rate-limiter.js';

export interface ResumableImport {
  file?: string;
  concurrency: number;
  failed?: string;
  uncertain?: string;
  journal?: string;
}

/** `store [-p NAME] pets add --file F [flags] --skip N`, for any N. */
export function resumeCommand(
  opts: ResumableImport,
  options: Pick<GlobalOptions, 'json' | 'jsonFields' | 'timeoutMs'>,
  env: Env,
  profile: Pick<ResolvedProfile, 'name' | 'source'>,
): (skip: number) => string {
  const words = ['pets', 'add', '--file', opts.file ?? '-'];
  // The fields asked for too: pasted, the command prints what the first run printed.
  if (options.json)
    words.push('--json', ...(options.jsonFields ? [options.jsonFields.join(',')] : []));
  // A time limit this shell would not give by itself (STORE_TIMEOUT stays set in it).
  const given = env.STORE_TIMEOUT ? Number(env.STORE_TIMEOUT) : DEFAULT_TIMEOUT_SECONDS;
  if (options.timeoutMs !== timeoutMs(given)) {
    words.push('--timeout', String(options.timeoutMs / 1000));
  }
  if (opts.concurrency !== DEFAULT_CONCURRENCY) {
    words.push('--concurrency', String(opts.concurrency));
  }
  if (opts.failed !== undefined) words.push('--failed', opts.failed);
  if (opts.uncertain !== undefined) words.push('--uncertain', opts.uncertain);
  if (opts.journal !== undefined) words.push('--journal', opts.journal);
  const line = words.map(shellWord).join(' ');
  return (skip) => commandFor(profile, `${line} --skip ${skip}`);
}
