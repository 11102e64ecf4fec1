import { describe, expect, it } from 'vitest';
import { RateLimiter } from '../../src/bulk/rate-limiter.js';

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

const tick = async () => {
  for (let i = 0; i < 5; i += 1) await Promise.resolve();
};

describe('RateLimiter', () => {
  it('halves the attempts in flight on 429, at most once a second, never below 1', () => {
    const limiter = new RateLimiter(8);
    limiter.tooMany(0);
    expect(limiter.current).toBe(4);
    limiter.tooMany(500); // the same burst of 429s
    expect(limiter.current).toBe(4);
    limiter.tooMany(1500);
    limiter.tooMany(2600);
    limiter.tooMany(3700);
    limiter.tooMany(4800);
    expect(limiter.current).toBe(1);
  });

  it('raises the limit by one after `current` successes in a row, up to the maximum', () => {
    const limiter = new RateLimiter(4);
    limiter.tooMany(0);
    expect(limiter.current).toBe(2);
    limiter.succeeded();
    expect(limiter.current).toBe(2);
    limiter.succeeded();
    expect(limiter.current).toBe(3);
    for (let i = 0; i < 20; i += 1) limiter.succeeded();
    expect(limiter.current).toBe(4);
  });

  it('makes an attempt wait while `current` attempts run', async () => {
    const limiter = new RateLimiter(2);
    const held = [deferred(), deferred()];
    const started: number[] = [];
    const attempt = (i: number) => () => {
      started.push(i);
      return held[i]?.promise ?? Promise.resolve();
    };
    const runs = [limiter.run(attempt(0)), limiter.run(attempt(1)), limiter.run(attempt(2))];
    await tick();
    expect(started).toEqual([0, 1]);
    limiter.tooMany(0); // now 1: the third waits until both have ended
    held[0]?.resolve();
    await tick();
    expect(started).toEqual([0, 1]);
    held[1]?.resolve();
    await Promise.all(runs);
    expect(started).toEqual([0, 1, 2]);
  });
});
