// `pets add --file`: animals from a file or stdin, sent with a bounded number of requests in
// flight over one keep-alive pool, reported one result per input in input order. NDJSON is
// read as it streams, so memory does not grow with the file.
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { createPet } from '../../api/pets.js';
import type { Context } from '../../context.js';
import {
  CliError,
  describeError,
  ExitCode,
  FlagError,
  NetworkError,
  SilentExit,
  toReport,
} from '../../errors.js';
import { parseJson, stringifyJson } from '../../json.js';
import { type RowWriter, rowWriter } from '../../render/output.js';
import { NewPet, type Pet } from '../../schemas.js';
import type * as z from '../../zod.js';
import { PET_COLUMNS } from './columns.js';

export const DEFAULT_CONCURRENCY = 8;

export type Input = { n: number; value: unknown } | { n: number; error: CliError };
type Outcome = { pet: Pet } | { failure: CliError };

const EXPECTED = 'expected a JSON object, a JSON array or NDJSON';

/**
 * NDJSON when the first line is JSON on its own: yielded line by line, a bad later line being
 * that input's failure. Otherwise (a JSON array, a pretty-printed object) the whole text is one
 * document, and text that is neither is a usage error before anything is sent.
 */
export async function* readInputs(stream: Readable, signal?: AbortSignal): AsyncGenerator<Input> {
  let mode: 'start' | 'ndjson' | 'document' = 'start';
  const held: string[] = [];
  let n = 0;
  let lineNo = 0;
  // The signal closes the reader on Ctrl-C, also while it waits for more input.
  const lines = createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY, signal });
  for await (const raw of lines) {
    lineNo += 1;
    // A byte-order mark (files saved by some Windows editors) is not part of the JSON.
    const line = lineNo === 1 ? raw.replace(/^\uFEFF/, '') : raw;
    if (mode === 'document') {
      held.push(line);
      continue;
    }
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = mode === 'start' && line.trimStart().startsWith('[') ? undefined : parseJson(line);
    } catch {
      if (mode === 'ndjson') {
        n += 1;
        yield { n, error: rejected('invalid_json', `line ${lineNo} is not valid JSON`) };
        continue;
      }
    }
    if (value === undefined) {
      mode = 'document';
      held.push(line);
      continue;
    }
    mode = 'ndjson';
    n += 1;
    yield { n, value };
  }
  if (signal?.aborted) return;
  if (mode === 'start') throw new FlagError(`--file is empty: ${EXPECTED}`);
  if (mode === 'document') {
    let document: unknown;
    try {
      document = parseJson(held.join('\n'));
    } catch {
      throw new FlagError(`--file is not JSON or NDJSON (${EXPECTED}); nothing was sent`);
    }
    for (const value of Array.isArray(document) ? document : [document]) {
      n += 1;
      yield { n, value };
    }
  }
}

function rejected(code: string, message: string): CliError {
  return new CliError(message, ExitCode.rejected, code);
}

function invalidInput(issues: z.core.$ZodIssue[]): CliError {
  const message = issues.map((issue) => `${issue.path.join('.') || 'input'}: ${issue.message}`);
  return rejected('invalid_input', message.join('; '));
}

/** A live line on a terminal's stderr: created, failed, rate. */
class Progress {
  private readonly started = performance.now();
  private drawn = 0;
  constructor(private readonly write: (text: string) => void) {}

  rate(created: number): number {
    return Math.round(created / Math.max((performance.now() - this.started) / 1000, 0.001));
  }

  update(created: number, failed: number): void {
    const now = performance.now();
    if (now - this.drawn < 100) return;
    this.drawn = now;
    this.write(`\r\u001b[K${created} created, ${failed} failed (${this.rate(created)}/s)`);
  }

  clear(): void {
    this.write('\r\u001b[K');
    this.drawn = 0;
  }
}

/** Sends every input once, at most `concurrency` at a time; reports each in input order. */
export async function sendAll(
  inputs: AsyncIterable<Input>,
  ctx: Context,
  concurrency: number,
): Promise<void> {
  const { io, options, signal } = ctx;
  // V8 sizes its heap to the allocation rate: a long import ended near 200 MiB of RSS with
  // 15 MB live after GC. Smaller heaps keep peak memory flat whatever the input's size
  // (measured: 107, 111, 114 MiB for 1,000, 10,000, 50,000 animals) for ~12% of the rate.
  // Set here only: no other command runs long enough to need it.
  (await import('node:v8')).setFlagsFromString('--optimize-for-size');
  // Requests in flight are let finish after Ctrl-C: whether they created an animal is known.
  const api = await ctx.api({ interruptible: false });
  const progress = io.stderrIsTTY ? new Progress((text) => io.err(text)) : undefined;
  let rows: RowWriter<Pet> | undefined;
  let created = 0;
  let failed = 0;
  let firstFailure: CliError | undefined;
  let unreachable: { at: number; error: NetworkError } | undefined;

  // NDJSON lines leave in batches: one write per line costs a system call each.
  let batch = '';
  let batchTimer: NodeJS.Timeout | undefined;
  const flush = () => {
    clearTimeout(batchTimer);
    batchTimer = undefined;
    if (batch !== '') io.out(batch);
    batch = '';
  };
  const writeLine = (value: unknown) => {
    batch += `${stringifyJson(value)}\n`;
    if (batch.length >= 16_384) flush();
    else batchTimer ??= setTimeout(flush, 50);
  };

  const report = (n: number, outcome: Outcome) => {
    if ('pet' in outcome) {
      created += 1;
      if (options.json) writeLine(outcome.pet);
      else {
        rows ??= rowWriter(io, PET_COLUMNS);
        rows.write(outcome.pet);
      }
    } else {
      failed += 1;
      firstFailure ??= outcome.failure;
      if (options.json) writeLine({ input: n, error: toReport(outcome.failure) });
      else {
        progress?.clear();
        io.err(`error: input ${n}: ${describeError(outcome.failure)}\n`);
      }
    }
    progress?.update(created, failed);
  };

  // Outcomes wait here until every earlier input has been reported.
  const done = new Map<number, Outcome>();
  let next = 1;
  let wake: (() => void) | undefined;
  const settle = (n: number, outcome: Outcome) => {
    done.set(n, outcome);
    for (let ready = done.get(next); ready; ready = done.get(next)) {
      done.delete(next);
      report(next, ready);
      next += 1;
    }
    wake?.();
  };
  const reported = () =>
    new Promise<void>((resolve) => {
      wake = resolve;
    });

  const send = async (n: number, pet: NewPet) => {
    try {
      settle(n, { pet: await createPet(api, pet) });
    } catch (error) {
      if (!(error instanceof CliError)) throw error;
      if (error instanceof NetworkError && error.unreachable) unreachable ??= { at: n, error };
      settle(n, { failure: error });
    }
  };

  const inFlight = new Set<Promise<void>>();
  let total = 0;
  // Ctrl-C waits for the requests in flight (up to --timeout): say so, and how to skip it.
  const onAbort = () => {
    if (inFlight.size > 0) {
      progress?.clear();
      io.err(`waiting for ${inFlight.size} requests in flight (Ctrl-C again to quit at once)\n`);
    }
  };
  signal.addEventListener('abort', onAbort, { once: true });
  for await (const input of inputs) {
    // The window: never more than `concurrency` inputs sent or waiting to be reported.
    while (input.n - next >= concurrency && !signal.aborted) await reported();
    if (signal.aborted) break;
    total = input.n;
    if ('error' in input) {
      settle(input.n, { failure: input.error });
      continue;
    }
    const check = NewPet.safeParse(input.value);
    if (!check.success) settle(input.n, { failure: invalidInput(check.error.issues) });
    else if (unreachable) {
      const reason = `input ${unreachable.at} could not reach the server (${unreachable.error.message})`;
      settle(input.n, {
        failure: new CliError(`not sent: ${reason}`, ExitCode.network, 'not_sent'),
      });
    } else {
      const task = send(input.n, input.value as NewPet);
      inFlight.add(task);
      void task.finally(() => inFlight.delete(task));
    }
  }
  await Promise.all(inFlight);
  signal.removeEventListener('abort', onAbort);
  flush();
  await rows?.end();
  progress?.clear();

  if (signal.aborted) {
    io.err(
      `interrupted: ${created} created, ${failed} failed; inputs from ${next} on were not sent\n`,
    );
    throw new SilentExit(ExitCode.interrupted);
  }
  if (firstFailure) {
    if (!options.json) io.err(`${failed} of ${total} animals were not created\n`);
    throw new SilentExit(firstFailure.exitCode);
  }
  if (progress) io.err(`Created ${created} animals (${progress.rate(created)}/s)\n`);
}
