// A stretch of work that holds the event loop (a --jq filter) runs without store's signal
// listeners, so that a signal has its own effect; they are put back after, however it ends.
import { afterEach, describe, expect, it } from 'vitest';
import { HANDLED_SIGNALS, withSignalsEndingAtOnce } from '../src/signals.js';

const ours = () => {};

describe('withSignalsEndingAtOnce', () => {
  afterEach(() => {
    for (const name of HANDLED_SIGNALS) process.off(name, ours);
  });

  it('runs the work with no listener for any handled signal, and puts each back after', () => {
    for (const name of HANDLED_SIGNALS) process.on(name, ours);
    const before = HANDLED_SIGNALS.map((name) => process.listeners(name));
    const during = withSignalsEndingAtOnce(() =>
      HANDLED_SIGNALS.map((name) => process.listenerCount(name)),
    );
    expect(during).toEqual(HANDLED_SIGNALS.map(() => 0));
    expect(HANDLED_SIGNALS.map((name) => process.listeners(name))).toEqual(before);
  });

  it('puts them back when the work throws', () => {
    for (const name of HANDLED_SIGNALS) process.on(name, ours);
    expect(() =>
      withSignalsEndingAtOnce(() => {
        throw new Error('the filter failed');
      }),
    ).toThrow('the filter failed');
    for (const name of HANDLED_SIGNALS) expect(process.listeners(name)).toContain(ours);
  });
});
