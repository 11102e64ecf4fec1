// The time limit's bounds: checked where the global options are read (main.ts), and said
// when --timeout comes without a value (program.ts).

/** A day: longer would overflow Node's timers (2^31 ms) and time out at once. */
export const MAX_TIMEOUT_SECONDS = 86_400;

export const TIMEOUT_RULE = `a positive number of seconds, at most ${MAX_TIMEOUT_SECONDS}`;

/** The time limit when neither --timeout nor STORE_TIMEOUT sets one. */
export const DEFAULT_TIMEOUT_SECONDS = 30;

/** Seconds as the milliseconds a request is given: at least one (`--timeout 1e-9` is a
 * time limit, not "no time at all"). */
export function timeoutMs(seconds: number): number {
  return Math.max(1, Math.round(seconds * 1000));
}
