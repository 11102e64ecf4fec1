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

/**
 * `store [-p NAME] pets add --file F [flags] --skip N`, for any N: its parts, each a flag with
 * its value (shell-quoted), to be laid out whole on one line or a line each (`commandLines`).
 */
export function resumeCommand(
  opts: ResumableImport,
  options: Pick<GlobalOptions, 'json' | 'jsonFields' | 'timeoutMs'>,
  env: Env,
  profile: Pick<ResolvedProfile, 'name' | 'source'>,
): (skip: number) => string[] {
  const flags: string[][] = [['--file', opts.file ?? '-']];
  // The fields asked for too: pasted, the command prints what the first run printed.
  if (options.json) {
    flags.push(['--json', ...(options.jsonFields ? [options.jsonFields.join(',')] : [])]);
  }
  // A time limit this shell would not give by itself (STORE_TIMEOUT stays set in it).
  const given = env.STORE_TIMEOUT ? Number(env.STORE_TIMEOUT) : DEFAULT_TIMEOUT_SECONDS;
  if (options.timeoutMs !== timeoutMs(given)) {
    flags.push(['--timeout', String(options.timeoutMs / 1000)]);
  }
  if (opts.concurrency !== DEFAULT_CONCURRENCY) {
    flags.push(['--concurrency', String(opts.concurrency)]);
  }
  if (opts.failed !== undefined) flags.push(['--failed', opts.failed]);
  if (opts.uncertain !== undefined) flags.push(['--uncertain', opts.uncertain]);
  if (opts.journal !== undefined) flags.push(['--journal', opts.journal]);
  const parts = [commandFor(profile, 'pets add'), ...flags.map((f) => f.map(shellWord).join(' '))];
  return (skip) => [...parts, `--skip ${skip}`];
}

/** The command on one line: for a log, a pipe, JSON. */
export const commandLine = (parts: string[]): string => parts.join(' ');

/**
 * The command a flag per line, each but the last ending in ` \`: on a terminal every line
 * then fits (where no path is wider than it), the shell reads the lines as one command when
 * they are pasted, and a first line pasted alone waits for the rest instead of running without
 * its `--skip` (which would send every input again).
 */
export const commandLines = (parts: string[]): string => parts.join(' \\\n  ');
