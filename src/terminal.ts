// What is known of the terminal: whether colour and a redrawn line may be written, its width.
import type { Readable } from 'node:stream';
import type { Env } from './env.js';

/**
 * Whether colour is written, as gh decides it (no-color.org, bixense.com/clicolors): off for
 * --no-color and a non-empty NO_COLOR (an empty one is unset, no-color.org says); else on for
 * CLICOLOR_FORCE other than 0 and FORCE_COLOR other than 0 or false, even off a terminal; else
 * off for CLICOLOR=0 and TERM=dumb; else on a terminal only. A request for no colour wins over
 * one that forces it: the user who set NO_COLOR asked for none.
 */
export function colorAllowed(isTTY: boolean, env: Env, noColorFlag = false): boolean {
  if (noColorFlag || env.NO_COLOR) return false;
  const forced = env.CLICOLOR_FORCE;
  if (forced && forced !== '0') return true;
  const force = env.FORCE_COLOR;
  if (force !== undefined) return force !== '0' && force !== 'false';
  return isTTY && env.CLICOLOR !== '0' && env.TERM !== 'dumb';
}

/** Whether stderr may carry a line redrawn in place (spinner, progress): a terminal that
 * understands cursor moves; TERM=dumb would show the erase sequences as text. */
export function statusLineAllowed(isTTY: boolean, env: Env): boolean {
  return isTTY && env.TERM !== 'dumb';
}

const DEFAULT_COLUMNS = 80;

/**
 * The width of the terminal a stream is on: COLUMNS when it is a positive integer (as `ls`
 * does: a script or a test can set any width), else the terminal's own, else 80.
 */
export function terminalColumns(env: Env, stream: { isTTY?: boolean; columns?: number }): number {
  const fromEnv = Number(env.COLUMNS);
  if (env.COLUMNS?.trim() && Number.isInteger(fromEnv) && fromEnv > 0) return fromEnv;
  if (stream.isTTY && stream.columns !== undefined && stream.columns > 0) return stream.columns;
  return DEFAULT_COLUMNS;
}

export interface TTYReadable extends Readable {
  isTTY?: boolean;
  setRawMode?(mode: boolean): unknown;
}
