import { describe, expect, it } from 'vitest';
import { OrderedWindow } from '../../src/bulk/ordered-window.js';

/** A task whose end the test decides. */
function deferred<T>() {
  let resolve!: (value: T) => void;
  const promise = new Promise<T>((r) => {
    resolve = r;
  });
  return { promise, resolve };
}

describe('OrderedWindow', () => {
  it('reports results in number order, whatever order the tasks finish in', async () => {
    const reported: string[] = [];
    const window = new OrderedWindow<string>({
      span: 3,
      limit: () => 3,
      report: (n, result) => reported.push(`${n}:${result}`),
    });
    const tasks = [deferred<string>(), deferred<string>(), deferred<string>()];
    tasks.forEach((task, i) => {
      window.start(i + 1, () => task.promise);
    });
    tasks[2]?.resolve('c');
    tasks[1]?.resolve('b');
    await Promise.resolve();
    await Promise.resolve();
    expect(reported).toEqual([]);
    tasks[0]?.resolve('a');
    await window.drain();
    expect(reported).toEqual(['1:a', '2:b', '3:c']);
  });

  it('lets a number start only while the span from the oldest unreported allows it', async () => {
    const window = new OrderedWindow<number>({ span: 2, limit: () => 10, report: () => {} });
    const first = deferred<number>();
    window.start(1, () => first.promise);
    window.settle(2, 2);
    let ready = false;
    const waiting = window.ready(3).then(() => {
      ready = true;
    });
    await Promise.resolve();
    expect(ready).toBe(false); // 1 is not reported yet: 3 - 1 >= span
    first.resolve(1);
    await waiting;
    expect(ready).toBe(true);
    expect(window.unreported).toBe(3);
  });

  it('never runs more tasks at once than the limit, read anew each time', async () => {
    let limit = 2;
    const window = new OrderedWindow<number>({ span: 10, limit: () => limit, report: () => {} });
    const tasks = [deferred<number>(), deferred<number>()];
    window.start(1, () => (tasks[0] as { promise: Promise<number> }).promise);
    window.start(2, () => (tasks[1] as { promise: Promise<number> }).promise);
    let third = false;
    const waiting = window.ready(3).then(() => {
      third = true;
    });
    await Promise.resolve();
    expect(third).toBe(false);
    expect(window.inFlight).toBe(2);
    limit = 1;
    tasks[0]?.resolve(1); // one still runs, and the limit is now 1
    await Promise.resolve();
    await Promise.resolve();
    expect(third).toBe(false);
    tasks[1]?.resolve(2);
    await waiting;
    expect(third).toBe(true);
  });

  it('starts from the first number given (inputs skipped)', async () => {
    const reported: number[] = [];
    const window = new OrderedWindow<number>({
      span: 2,
      limit: () => 2,
      first: 11,
      report: (n) => reported.push(n),
    });
    window.settle(12, 0);
    window.settle(11, 0);
    expect(reported).toEqual([11, 12]);
  });

  it('stops waiting when the signal is aborted', async () => {
    const window = new OrderedWindow<number>({ span: 1, limit: () => 1, report: () => {} });
    window.start(1, () => new Promise<number>(() => {}));
    const controller = new AbortController();
    const waiting = window.ready(2, controller.signal);
    controller.abort();
    await expect(waiting).resolves.toBeUndefined();
  });
  it.each([
    ['a task that throws', true],
    ['a report that throws', false],
  ])(
    'is broken by %s: ready() and drain() throw it, no rejection goes unhandled',
    async (_what, inTask) => {
      // Before, the rejection was unhandled: the process died with its stack and source code,
      // and the inputs waiting for the window were never reported.
      const unhandled: unknown[] = [];
      const onUnhandled = (reason: unknown) => unhandled.push(reason);
      process.on('unhandledRejection', onUnhandled);
      try {
        const bug = new Error('bug');
        const reported: number[] = [];
        const window = new OrderedWindow<number>({
          span: 2,
          limit: () => 2,
          report: (n) => {
            if (!inTask && n === 1) throw bug;
            reported.push(n);
          },
        });
        const first = deferred<number>();
        window.start(1, () => first.promise.then((n) => (inTask ? Promise.reject(bug) : n)));
        window.start(2, async () => 2);
        // Number 3 waits for the span, which number 1 never leaves.
        const waiting = window.ready(3);
        first.resolve(1);
        await expect(waiting).rejects.toBe(bug);
        await expect(window.drain()).rejects.toBe(bug);
        await expect(window.ready(3)).rejects.toBe(bug);
        expect(window.inFlight).toBe(0);
        expect(reported).toEqual([]);
        await new Promise((resolve) => setTimeout(resolve, 10));
        expect(unhandled).toEqual([]);
      } finally {
        process.off('unhandledRejection', onUnhandled);
      }
    },
  );
});
