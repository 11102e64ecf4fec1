// The signals that end a command as Ctrl-C does, and a stretch of work that cannot stop to
// listen for them.

/** Signals that end a command as Ctrl-C does: what is in flight is let finish and reported
 * (src/main.ts). */
export const HANDLED_SIGNALS: readonly NodeJS.Signals[] =
  process.platform === 'win32' ? ['SIGINT', 'SIGTERM'] : ['SIGINT', 'SIGTERM', 'SIGHUP'];

/**
 * Runs `work`, which holds the event loop until it returns (jq filtering in WebAssembly), with
 * the signals' own effect: a listener could run only once it returns, so Ctrl-C, SIGTERM or
 * SIGHUP in the meantime would be held, the process going on with a filter that may never end.
 * Without listeners the signal ends the process at once, as it ends jq; they are put back
 * after.
 */
export function withSignalsEndingAtOnce<T>(work: () => T): T {
  const held = HANDLED_SIGNALS.map((name) => [name, process.listeners(name)] as const);
  for (const [name, listeners] of held) for (const each of listeners) process.off(name, each);
  try {
    return work();
  } finally {
    for (const [name, listeners] of held) for (const each of listeners) process.on(name, each);
  }
}
