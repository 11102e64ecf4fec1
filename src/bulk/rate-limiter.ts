// How many requests of a bulk import may be in flight, adjusted to the server's 429s.

export const DEFAULT_CONCURRENCY = 8;

/** Requests in flight: halved while the server answers 429 (at most once a second), raised
 * by one again after each `current` successes in a row. Every attempt, a resend included,
 * waits for a place. */
export class RateLimiter {
  current: number;
  private active = 0;
  private readonly waiting: (() => void)[] = [];
  private lastCut = Number.NEGATIVE_INFINITY;
  private successes = 0;

  constructor(private readonly max: number) {
    this.current = max;
  }

  async run<T>(attempt: () => Promise<T>): Promise<T> {
    while (this.active >= this.current) {
      await new Promise<void>((resolve) => this.waiting.push(resolve));
    }
    this.active += 1;
    try {
      return await attempt();
    } finally {
      this.active -= 1;
      this.waiting.shift()?.();
    }
  }

  tooMany(now = performance.now()): void {
    this.successes = 0;
    if (now - this.lastCut < 1000) return;
    this.lastCut = now;
    this.current = Math.max(1, Math.floor(this.current / 2));
  }

  succeeded(): void {
    this.successes += 1;
    if (this.current < this.max && this.successes >= this.current) {
      this.current += 1;
      this.successes = 0;
      this.waiting.shift()?.();
    }
  }
}
