// Runs numbered tasks with a bounded number in flight and hands their results over in number
// order, however they finish. The span from the oldest unreported number to the newest
// started one never exceeds `span`, so results waiting for an earlier one stay few, and at
// most `limit()` tasks run at once (a limit that may change while it runs).

export interface OrderedWindowOptions<T> {
  /** How many numbers may be started but not yet reported. */
  span: number;
  /** How many tasks may run at once, read each time a new one would start. */
  limit(): number;
  /** Called once per number, in order from `first`. */
  report(n: number, result: T): void;
  /** The first number (1 unless inputs are skipped). */
  first?: number;
}

export class OrderedWindow<T> {
  private readonly done = new Map<number, T>();
  private next: number;
  private running = 0;
  private wake: (() => void) | undefined;
  private readonly tasks = new Set<Promise<void>>();
  /** Numbers whose task runs; those given a result by abandonRunning are dropped from here. */
  private readonly runningNumbers = new Set<number>();
  /** The first task that threw (a bug: tasks report failures as results), or that a report
   * threw in: the window stops, and ready() and drain() throw it instead of an unhandled
   * rejection ending the process with no report. */
  private broken: { error: unknown } | undefined;

  constructor(private readonly options: OrderedWindowOptions<T>) {
    this.next = options.first ?? 1;
  }

  /** The first number not reported yet. */
  get unreported(): number {
    return this.next;
  }

  get inFlight(): number {
    return this.running;
  }

  /** Resolves once number `n` may start: the span and the limit allow it. */
  async ready(n: number, signal?: AbortSignal): Promise<void> {
    while (
      !this.throwIfBroken() &&
      !signal?.aborted &&
      (n - this.next >= this.options.span || this.running >= Math.max(1, this.options.limit()))
    ) {
      await new Promise<void>((resolve) => {
        const onAbort = () => resolve();
        this.wake = () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        };
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    }
  }

  /** Starts `task` for number `n`; its result is reported in order. A task must not throw. */
  start(n: number, task: () => Promise<T>): void {
    this.running += 1;
    this.runningNumbers.add(n);
    const run = task()
      .then(
        (result) => {
          this.running -= 1;
          // Abandoned: its result was given already, and reported.
          if (!this.runningNumbers.delete(n)) return;
          this.settle(n, result);
        },
        (error: unknown) => {
          this.running -= 1;
          throw error;
        },
      )
      .catch((error: unknown) => {
        this.broken ??= { error };
        this.wakeUp();
      });
    this.tasks.add(run);
    void run.finally(() => this.tasks.delete(run));
  }

  /** A result known without a task (an input that was not sent). */
  settle(n: number, result: T): void {
    this.done.set(n, result);
    this.reportReady();
  }

  /** Reports the results there are from the first unreported number on, in order. */
  private reportReady(): void {
    while (this.done.has(this.next)) {
      const ready = this.done.get(this.next) as T;
      this.done.delete(this.next);
      this.options.report(this.next, ready);
      this.next += 1;
    }
    this.wakeUp();
  }

  /**
   * The process is about to end with tasks still running: each gets `result(n)` in place of
   * its own (which, should it still come, is dropped), and every result there is is reported,
   * in order.
   */
  abandonRunning(result: (n: number) => T): void {
    const numbers = [...this.runningNumbers].sort((a, b) => a - b);
    this.runningNumbers.clear();
    for (const n of numbers) this.done.set(n, result(n));
    this.reportReady();
  }

  /** Waits for every task started. */
  async drain(): Promise<void> {
    while (this.tasks.size > 0) await Promise.all(this.tasks);
    this.throwIfBroken();
  }

  private wakeUp(): void {
    const wake = this.wake;
    this.wake = undefined;
    wake?.();
  }

  /** False, or throws what broke the window. */
  private throwIfBroken(): false {
    if (this.broken) throw this.broken.error;
    return false;
  }
}
