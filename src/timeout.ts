// The time limit's bounds: checked where the global options are read (main.ts), and said
// when --timeout comes without a value (program.ts).

/** A day: longer would overflow Node's timers (2^31 ms) and time out at once. */
export const MAX_TIMEOUT_SECONDS = 86_400;

export const TIMEOUT_RULE = `a positive number of seconds, at most ${MAX_TIMEOUT_SECONDS}`;
