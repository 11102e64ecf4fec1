// pets add --file at volume: a real loopback server that answers out of order.

import { execFileSync, spawn } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, linkSync, openSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import type { ServerResponse } from 'node:http';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { quitAtOnceNote } from '../../src/bulk/import.js';
import { PET_COLUMNS } from '../../src/commands/pets/columns.js';
import { main } from '../../src/main.js';
import { BulkReport, ranges } from '../../src/render/bulk-report.js';
import { baseEnv, run, tempDir, testIO } from '../helpers/cli.js';
import { faultServer, reply } from '../helpers/fault-server.js';
import { BIN, collect, processEnv, storeOnFullDisk } from '../helpers/process.js';

const envFor = (url: string) => baseEnv({ STORE_API_KEY: 'bulk-key', STORE_BASE_URL: url });

/** A symbolic link to `target` (which need not exist), in a folder of its own. */
function linkTo(target: string): string {
  const link = join(tempDir(), 'link.ndjson');
  symlinkSync(target, link);
  return link;
}

/** A server that answers each POST after a delay chosen by its body (by name, not by the
 * order of arrival, which differs from input order with more than one request in flight),
 * counting requests in flight. */
async function slowServer(delayMs: (body: { name: string }) => number) {
  let inFlight = 0;
  let maxInFlight = 0;
  const server = await faultServer((_req, res, n) => {
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    const body = JSON.parse(server.seen[n - 1]?.body ?? '{}');
    setTimeout(() => {
      inFlight -= 1;
      answerByName(res, body);
    }, delayMs(body));
  });
  return { server, maxInFlight: () => maxInFlight };
}

/** bad… is refused (400); p7 is created with id 7. */
function answerByName(res: ServerResponse, body: { name: string }) {
  if (body.name.startsWith('bad'))
    reply(res, 400, `{"code":"rejected","message":"no ${body.name}","status":400}`);
  else reply(res, 201, JSON.stringify({ id: Number(body.name.slice(1)), ...body }));
}

const lines = (count: number, bad: (i: number) => boolean = () => false) =>
  Array.from({ length: count }, (_, k) => {
    const i = k + 1;
    return JSON.stringify({ name: bad(i) ? `bad${i}` : `p${i}`, categoryId: 1 });
  });

/** `pets add --file -` with `args` and `stdin`, and a Ctrl-C once `n` requests reached a
 * server that answers each after `delayMs`. */
async function ctrlCAfter(n: number, delayMs: number, args: string[], stdin: string) {
  const { server } = await slowServer(() => delayMs);
  const controller = new AbortController();
  const pending = run(['pets', 'add', '--file', '-', ...args], {
    env: envFor(server.url),
    stdin,
    signal: controller.signal,
  });
  while (server.seen.length < n) await new Promise((resolve) => setTimeout(resolve, 10));
  controller.abort();
  return { result: await pending, server };
}

describe('pets add --file in bulk', () => {
  it('sends every line exactly once, at most --concurrency at a time, and reports in input order', async () => {
    const { server, maxInFlight } = await slowServer(() => Math.random() * 15);
    const input = lines(150, (i) => i % 20 === 0);
    const result = await run(['pets', 'add', '--file', '-', '--json', '--concurrency', '5'], {
      env: envFor(server.url),
      stdin: `${input.join('\n')}\n`,
    });
    expect(server.seen.map((r) => r.body).sort()).toEqual([...input].sort());
    expect(maxInFlight()).toBeLessThanOrEqual(5);
    expect(maxInFlight()).toBeGreaterThan(1);
    const expected = input.map((line, k) => {
      const body = JSON.parse(line);
      return body.name.startsWith('bad')
        ? `{"input":${k + 1},"line":${k + 1},"error":{"code":"rejected","message":"no ${body.name}","status":400}}`
        : JSON.stringify({ id: k + 1, ...body });
    });
    expect(result).toEqual({
      code: 3,
      stdout: `${expected.join('\n')}\n`,
      stderr: '{"summary":{"created":143,"failed":7,"uncertain":0,"notSent":0}}\n',
      prompts: [],
    });
  });

  it('streams every row with FORCE_COLOR in a pipe, before and after the colours are loaded', async () => {
    // The last answer waits until the row before it has reached stdout: rows written after the
    // colours loaded are not held back.
    let shown = '';
    const server = await faultServer((_req, res, n) => {
      const body = server.seen[n - 1]?.body ?? '{}';
      const answer = () => reply(res, 201, JSON.stringify({ id: n, ...JSON.parse(body) }));
      const whenShown = () => (shown.includes('\tp4\t') ? answer() : setTimeout(whenShown, 10));
      setTimeout(n === 5 ? whenShown : answer, 30);
    });
    const input = Array.from(
      { length: 5 },
      (_, k) => `{"name":"p${k + 1}","categoryId":1,"status":"available"}`,
    );
    const result = await run(['pets', 'add', '--file', '-', '--concurrency', '1'], {
      env: { ...envFor(server.url), FORCE_COLOR: '1' },
      stdin: `${input.join('\n')}\n`,
      onStdout: (text) => {
        shown = text;
      },
    });
    const green = '\u001b[32mavailable\u001b[39m';
    expect(result).toEqual({
      code: 0,
      stdout: `ID\tNAME\tCATEGORY\tSTATUS\n${[1, 2, 3, 4, 5].map((i) => `${i}\tp${i}\t1\t${green}\n`).join('')}`,
      stderr: '5 created, 0 failed, 0 uncertain, 0 not sent\n',
      prompts: [],
    });
  });

  it('keeps 8 requests in flight without --concurrency', async () => {
    // Answers are held until 8 are in flight (2 s at most), then go out 300 ms after arrival:
    // a 9th would arrive meanwhile. Counted from each arrival alone, 300 ms could pass before
    // the 8th request arrived on a busy machine, and fewer than 8 were ever in flight.
    let inFlight = 0;
    let maxInFlight = 0;
    const held: (() => void)[] = [];
    let open = false;
    const openUp = () => {
      if (open) return;
      open = true;
      setTimeout(() => {
        for (const answer of held.splice(0)) answer();
      }, 300);
    };
    const fallback = setTimeout(openUp, 2000);
    const server = await faultServer((_req, res, n) => {
      inFlight += 1;
      maxInFlight = Math.max(maxInFlight, inFlight);
      const body = JSON.parse(server.seen[n - 1]?.body ?? '{}');
      const answer = () => {
        inFlight -= 1;
        answerByName(res, body);
      };
      if (open) setTimeout(answer, 300);
      else {
        held.push(answer);
        if (inFlight === 8) openUp();
      }
    });
    const result = await run(['pets', 'add', '--file', '-', '--json'], {
      env: envFor(server.url),
      stdin: `${lines(16).join('\n')}\n`,
    });
    clearTimeout(fallback);
    expect(result.code).toBe(0);
    expect(server.seen).toHaveLength(16);
    expect(maxInFlight).toBe(8);
  });

  it('streams tab-separated rows and names each failure by its line on stderr', async () => {
    const { server } = await slowServer(() => Math.random() * 5);
    const result = await run(['pets', 'add', '--file', '-'], {
      env: envFor(server.url),
      stdin: `${lines(4, (i) => i === 3).join('\n')}\n`,
    });
    expect(result).toEqual({
      code: 3,
      stdout: 'ID\tNAME\tCATEGORY\tSTATUS\n1\tp1\t1\t\n2\tp2\t1\t\n4\tp4\t1\t\n',
      stderr:
        'error: input 3 (line 3): no bad3 (rejected, HTTP 400)\n' +
        '3 created, 1 failed (input 3), 0 uncertain, 0 not sent\n',
      prompts: [],
    });
  });

  it('on Ctrl-C stops sending, lets the requests in flight finish, reports them, and exits 130', async () => {
    // Ctrl-C once the first 4 are in flight (their answers take a second).
    const { result, server } = await ctrlCAfter(
      4,
      1000,
      ['--json', '--concurrency', '4'],
      `${lines(100).join('\n')}\n`,
    );
    expect(server.seen).toHaveLength(4);
    expect(result).toEqual({
      code: 130,
      stdout: `${[1, 2, 3, 4].map((i) => `{"id":${i},"name":"p${i}","categoryId":1}`).join('\n')}\n`,
      // Under --json every line of stderr is JSON: the wait, the stop (with the command that
      // resumes it) and the summary.
      stderr:
        '{"notice":{"message":"waiting for 4 requests in flight (Ctrl-C again to quit at once)"}}\n' +
        `${JSON.stringify({ error: { code: 'interrupted', message: 'interrupted: inputs after 4 were not sent', status: null, hint: 'resume with: store pets add --file - --json --concurrency 4 --skip 4' } })}\n` +
        '{"summary":{"created":4,"failed":0,"uncertain":0,"notSent":0}}\n',
      prompts: [],
    });
  });

  it('a second Ctrl-C (quit at once) reports every input read, the one awaited as may-have-been-created', async () => {
    // Input 1 is answered at once, input 2 after a second, input 3 fails its check and waits
    // for 2 to be reported. The first version said "inputs 2-3 may have been created" and
    // offered --skip 3: input 3, never sent, was lost, and --failed held neither.
    // By name: the first request to arrive may be input 2's (p1 arriving second got the second's
    // wait, and input 4 was sent).
    const { server } = await slowServer((body) => (body.name === 'p1' ? 0 : 1000));
    const env = envFor(server.url);
    const failed = join(tempDir(), 'failed.ndjson');
    const input = [...lines(2), '{"categoryId":1}', ...lines(10).slice(3)];
    const { io, out, err } = testIO({ stdin: `${input.join('\n')}\n` }, env);
    const controller = new AbortController();
    const argv = ['pets', 'add', '--file', '-', '--json', '--concurrency', '2', '--failed', failed];
    const ended = main(argv, { io, env, signal: controller.signal });
    while (!out.text.includes('"id":1')) await new Promise((resolve) => setTimeout(resolve, 10));
    controller.abort();
    while (!err.text.includes('Ctrl-C again'))
      await new Promise((resolve) => setTimeout(resolve, 10));
    // What main() does on the second Ctrl-C, before the process ends by the signal.
    io.quitAtOnce();
    expect(server.seen).toHaveLength(2);
    expect({ stdout: out.text, stderr: err.text }).toEqual({
      stdout:
        '{"id":1,"name":"p1","categoryId":1}\n' +
        '{"input":2,"line":2,"error":{"code":"interrupted","message":"quit at once before its answer came: the animal may have been created","status":null}}\n' +
        '{"input":3,"line":3,"error":{"code":"invalid_input","message":"name is required","status":null}}\n',
      stderr:
        '{"notice":{"message":"waiting for 1 request in flight (Ctrl-C again to quit at once)"}}\n' +
        `{"error":{"code":"interrupted","message":"quit at once: inputs after 3 were not sent","status":null,"hint":"resume with: store pets add --file - --json --concurrency 2 --failed ${failed} --skip 3"}}\n` +
        `{"summary":{"created":1,"failed":1,"uncertain":1,"notSent":0,"failedFile":"${failed}","uncertainFile":"${failed}.uncertain"}}\n`,
    });
    // Input 3, never sent, is in --failed (a file to run again); input 2, which may have been
    // created, only in the file beside it: running --failed again cannot duplicate it.
    expect(readFileSync(failed, 'utf8')).toBe(`${input[2]}\n`);
    expect(readFileSync(`${failed}.uncertain`, 'utf8')).toBe(`${input[1]}\n`);

    // (A process would have ended here: this one lets input 2 finish, and drops its answer.)
    expect(await ended).toBe(130);
    expect(out.text.match(/"input":2/g)).toHaveLength(1);
  });

  it('a second Ctrl-C tells an input waiting for its turn after a 429 from one on its way', async () => {
    // Input 1 is never answered; input 2 is answered 429, which halves the limiter to one
    // request at a time, so once its Retry-After second is over it waits for input 1. Both
    // were reported "may have been created", though input 2 was certainly not.
    const server = await faultServer((_req, res, n) => {
      if (server.seen[n - 1]?.body.includes('"wait2')) {
        res.setHeader('retry-after', '1');
        reply(res, 429, '{"code":"rate_limited","message":"slow down","status":429}');
      }
    });
    const env = envFor(server.url);
    const stdin = new PassThrough();
    const { io, out, err } = testIO({ stdin }, env);
    const controller = new AbortController();
    const failed = join(tempDir(), 'failed.ndjson');
    const argv = ['pets', 'add', '--file', '-', '--json', '--concurrency', '2', '--failed', failed];
    const ended = main(argv, { io, env, signal: controller.signal });
    stdin.end('{"name":"hang1","categoryId":1}\n{"name":"wait2","categoryId":1}\n');
    while (server.seen.length < 2) await new Promise((resolve) => setTimeout(resolve, 10));
    // Past the Retry-After second: input 2 waits in the limiter, not sent again.
    await new Promise((resolve) => setTimeout(resolve, 1300));
    controller.abort();
    while (!err.text.includes('Ctrl-C again'))
      await new Promise((resolve) => setTimeout(resolve, 10));
    io.quitAtOnce();
    expect(server.seen.map((request) => JSON.parse(request.body).name)).toEqual(['hang1', 'wait2']);
    expect({ stdout: out.text, stderr: err.text }).toEqual({
      stdout:
        '{"input":1,"line":1,"error":{"code":"interrupted","message":"quit at once before its answer came: the animal may have been created","status":null}}\n' +
        '{"input":2,"line":2,"error":{"code":"interrupted","message":"quit at once while it waited for its turn to be sent: the animal was not created","status":null}}\n',
      stderr:
        '{"notice":{"message":"waiting for 2 requests in flight (Ctrl-C again to quit at once)"}}\n' +
        '{"error":{"code":"interrupted","message":"quit at once after every input had been read (not all had been sent)","status":null}}\n' +
        `{"summary":{"created":0,"failed":1,"uncertain":1,"notSent":0,"failedFile":"${failed}","uncertainFile":"${failed}.uncertain"}}\n`,
    });
    // Input 2 is in --failed, to send again; input 1, which may have been created, apart.
    expect(readFileSync(failed, 'utf8')).toBe('{"name":"wait2","categoryId":1}\n');
    expect(readFileSync(`${failed}.uncertain`, 'utf8')).toBe('{"name":"hang1","categoryId":1}\n');
    // (A process would have ended here; this one waits on input 1 until the server closes.)
    void ended;
  });

  it('a second Ctrl-C after a stop (401) names the inputs not sent and resumes at the first', async () => {
    // It said "quit at once after every input had been sent", without the not-sent line.
    // Input 1 is refused, input 2 never answered. Each step waits for what shows it: the 401
    // reported (its line out), then inputs 3-4 read (stdin's end); fixed waits of 200 ms could
    // run out first on a busy machine (inputs 3-4 sent, or not read before the Ctrl-C).
    const server = await faultServer((_req, res, n) => {
      // unauth… is refused; anything else gets no answer.
      if (server.seen[n - 1]?.body.includes('"unauth')) {
        reply(res, 401, '{"code":"unauthorized","message":"no","status":401}');
      }
    });
    const env = envFor(server.url);
    const stdin = new PassThrough();
    const { io, out, err } = testIO({ stdin }, env);
    const controller = new AbortController();
    const argv = ['pets', 'add', '--file', '-', '--json', '--concurrency', '8'];
    const ended = main(argv, { io, env, signal: controller.signal });
    const until = async (done: () => boolean) => {
      while (!done()) await new Promise((resolve) => setTimeout(resolve, 10));
    };
    stdin.write('{"name":"unauth1","categoryId":1}\n{"name":"hang2","categoryId":1}\n');
    await until(() => server.seen.length === 2);
    // The 401 is in: inputs read from now on are not sent.
    await until(() => out.text.includes('"input":1'));
    const read = once(stdin, 'end');
    stdin.end('{"name":"ok3","categoryId":1}\n{"name":"ok4","categoryId":1}\n');
    await read;
    await new Promise((resolve) => setImmediate(resolve));
    controller.abort();
    while (!err.text.includes('Ctrl-C again'))
      await new Promise((resolve) => setTimeout(resolve, 10));
    io.quitAtOnce();
    expect(server.seen).toHaveLength(2);
    const failed = 'input 1 failed: no';
    const hint = '"hint":"the key came from STORE_API_KEY"';
    expect({ stdout: out.text, stderr: err.text }).toEqual({
      stdout:
        '{"input":1,"line":1,"error":{"code":"unauthorized","message":"no","status":401,"hint":"the key came from STORE_API_KEY"}}\n' +
        '{"input":2,"line":2,"error":{"code":"interrupted","message":"quit at once before its answer came: the animal may have been created","status":null}}\n' +
        `{"input":3,"error":{"code":"not_sent","message":"${failed}","status":null}}\n` +
        `{"input":4,"error":{"code":"not_sent","message":"${failed}","status":null}}\n`,
      stderr:
        '{"notice":{"message":"waiting for 1 request in flight (Ctrl-C again to quit at once)"}}\n' +
        `{"error":{"code":"not_sent","message":"inputs 3-4 not sent: ${failed}","status":null,${hint}}}\n` +
        '{"error":{"code":"interrupted","message":"quit at once: inputs after 2 were not sent","status":null,"hint":"resume with: store pets add --file - --json --skip 2"}}\n' +
        '{"summary":{"created":0,"failed":1,"uncertain":1,"notSent":2}}\n',
    });

    // (A process would have ended here; this one waits on input 2 until the server closes.)
    void ended;
  });

  it('says where an import quit at once stopped sending', () => {
    expect(quitAtOnceNote(3, false)).toBe('quit at once: inputs after 3 were not sent');
    expect(quitAtOnceNote(7, true)).toBe('quit at once after every input had been sent');
    expect(quitAtOnceNote(7, true, true)).toBe(
      'quit at once after every input had been read (not all had been sent)',
    );
    expect(quitAtOnceNote(3, false, true)).toBe('quit at once: inputs after 3 were not sent');
  });

  it.each([false, true])(
    'writes each NDJSON line as its input is answered, none held in a batch a kill would lose (stderr a terminal: %s)',
    (stderrIsTTY) => {
      const { io, out, err } = testIO({ tty: { stderr: stderrIsTTY } }, baseEnv());
      const report = new BulkReport(io, { json: true, dryRun: false, columns: PET_COLUMNS });
      report.report(1, { kind: 'created', pet: { id: 1, name: 'p1', categoryId: 1 } });
      expect(out.text).toBe('{"id":1,"name":"p1","categoryId":1}\n');
      const said = report.quitAtOnce('quit at once', ['store pets add', '--file x', '--skip 1']);
      expect(said).toBe(
        '{"error":{"code":"interrupted","message":"quit at once","status":null,"hint":"resume with: store pets add --file x --skip 1"}}\n' +
          '{"summary":{"created":1,"failed":0,"uncertain":0,"notSent":0}}\n',
      );
      report.stopProgress();
      // The line is the caller's to write: the report wrote only its progress line, if any.
      expect(err.text).not.toContain('quit at once');
    },
  );

  it('on Ctrl-C still says what --failed misses (a line over 1 MiB)', async () => {
    const failed = join(tempDir(), 'failed.ndjson');
    const over = `{"name":"${'x'.repeat(1024 * 1024)}","categoryId":1}`;
    // Ctrl-C while input 3 is in flight: input 2, too long, failed before it. (A first line
    // may be a whole JSON array: the 1 MiB bound is for the lines after it.)
    const { result } = await ctrlCAfter(
      2,
      1000,
      ['--concurrency', '1', '--failed', failed],
      `${lines(1)[0]}\n${over}\n${lines(3).join('\n')}\n`,
    );
    expect(result).toEqual({
      code: 130,
      stdout: 'ID\tNAME\tCATEGORY\tSTATUS\n1\tp1\t1\t\n1\tp1\t1\t\n',
      stderr:
        'error: input 2 (line 2): longer than 1 MiB\n' +
        'waiting for 1 request in flight (Ctrl-C again to quit at once)\n' +
        `2 created, 1 failed (input 2), 0 uncertain, 0 not sent; failed and not sent in ${failed}; interrupted: inputs after 3 were not sent\n` +
        `hint: resume with: store pets add --file - --concurrency 1 --failed ${failed} --skip 3\n` +
        `warning: --failed ${failed} does not hold input 2: a line over 1 MiB is not kept\n`,

      prompts: [],
    });
    expect(readFileSync(failed, 'utf8')).toBe('');
  });

  it('shows progress and a summary on a terminal’s stderr', async () => {
    const { server } = await slowServer(() => 1);
    const result = await run(['pets', 'add', '--file', '-'], {
      env: envFor(server.url),
      stdin: `${lines(3).join('\n')}\n`,
      tty: { stderr: true },
    });
    expect(result.code).toBe(0);
    // Which counts are drawn depends on the pace (a draw within 100 ms of the last is skipped;
    // the half-second timer draws "0 created" when the first answer is slow): one or more.
    expect(result.stderr).toMatch(
      // A write names its profile first on a terminal (STORE_BASE_URL here).
      /^\u001b\[2mUsing profile production \(http:\/\/127\.0\.0\.1:\d+\/v1, from STORE_BASE_URL\)\u001b\[22m\n(\r\u001b\[K[0-3] created, 0 failed \(\d+\/s\))+\r\u001b\[K3 created, 0 failed, 0 uncertain, 0 not sent in \d+\.\d s \(\d+\/s\)\n$/,
    );
  });
});

describe('pets add --file --json: every line on stderr is JSON', () => {
  it('says the service’s deprecation, and the profile in use on a terminal, as JSON lines', async () => {
    const server = await faultServer((_req, res, n) =>
      reply(res, 201, `{"id":${n},"name":"Rex","categoryId":1}`, {
        deprecation: '@1924905600',
        sunset: 'Wed, 01 Jan 2031 00:00:00 GMT',
      }),
    );
    const result = await run(['pets', 'add', '--file', '-', '--json'], {
      env: envFor(server.url),
      stdin: '{"name":"Rex","categoryId":1}\n{"name":"Rex","categoryId":1}\n',
      tty: { stderr: true },
    });
    expect(result.code).toBe(0);
    // The progress line is drawn and erased in place (\r, erase to the end of the line): what
    // stays of each line is what follows its last erase.
    const lines = result.stderr.split('\n').map((line) => line.split('\u001b[K').at(-1));
    expect(lines).toEqual([
      `{"notice":{"message":"Using profile production (${server.url}, from STORE_BASE_URL)"}}`,
      '{"warning":{"message":"the API marks POST /pets as deprecated; it will be removed on 2031-01-01"}}',
      '{"summary":{"created":2,"failed":0,"uncertain":0,"notSent":0}}',
      '',
    ]);
  });
});

describe('pets add --file: the progress line counts toward the total', () => {
  /** What the progress line drew over an import of 6 animals answered 120 ms apart. */
  async function drawn(args: string[], stdin?: string) {
    const { server } = await slowServer(() => 120);
    const result = await run(['pets', 'add', '--concurrency', '1', ...args], {
      env: { ...envFor(server.url), NO_COLOR: '1' },
      ...(stdin === undefined ? {} : { stdin }),
      tty: { stderr: true },
    });
    expect(result.code).toBe(0);
    return result.stderr.replace(/\d+\/s/g, 'N/s').split('\r\u001b[K');
  }

  it('shows N of TOTAL, the share done and the time left for a JSON array', async () => {
    const file = join(tempDir(), 'animals.json');
    writeFileSync(file, `[${lines(6).join(',')}]`);
    const shown = await drawn(['--file', file]);
    expect(
      shown.some((text) =>
        /^[1-5] of 6 \(\d+%\): [1-5] created, 0 failed \(N\/s, \d+ s left\)$/.test(text),
      ),
    ).toBe(true);
    expect(
      shown.filter((text) => text.includes(' of ')).every((text) => !text.includes('about')),
    ).toBe(true);
  });

  it('estimates the total of NDJSON in a regular file from the bytes read, and says it is an estimate', async () => {
    const file = join(tempDir(), 'animals.ndjson');
    writeFileSync(file, `${lines(6).join('\n')}\n`);
    const shown = await drawn(['--file', file]);
    expect(
      shown.some((text) =>
        /^[1-5] of about 6 \(\d+%\): [1-5] created, 0 failed \(N\/s, about \d+ s left\)$/.test(
          text,
        ),
      ),
    ).toBe(true);
  });

  it('shows the count and the rate alone when the total cannot be known (a pipe)', async () => {
    const shown = await drawn(['--file', '-'], `${lines(6).join('\n')}\n`);
    const progress = shown.filter((text) => /created, 0 failed \(N\/s/.test(text));
    expect(progress.length).toBeGreaterThan(0);
    expect(progress.every((text) => /^[0-6] created, 0 failed \(N\/s\)$/.test(text))).toBe(true);
  });
});

describe('pets add --file: the progress line while the server makes it wait', () => {
  it('says it is waiting for a server that stalls', async () => {
    // The line stood still, with its last counts and rate, while nothing came back.
    // Long enough for the half-second redraws to see a second of silence, even under load.
    const { server } = await slowServer(() => (server.seen.length === 2 ? 2600 : 1));
    const result = await run(['pets', 'add', '--file', '-', '--concurrency', '1'], {
      env: { ...envFor(server.url), NO_COLOR: '1' },
      stdin: `${lines(3).join('\n')}\n`,
      tty: { stderr: true },
    });
    expect(result.code).toBe(0);
    const drawn = result.stderr.replace(/\d+\/s/g, 'N/s').split('\r\u001b[K');
    expect(
      drawn.some((text) =>
        /^1 created, 0 failed \(N\/s\); waiting for the server \([12] s\)$/.test(text),
      ),
    ).toBe(true);
    expect(drawn.at(-1)).toMatch(
      /^3 created, 0 failed, 0 uncertain, 0 not sent in \d+\.\d s \(N\/s\)\n$/,
    );
  });

  it('says the import is slowed down while the server answers 429', async () => {
    // Input 2 is answered 429, then created; input 3 takes 700 ms, so that the line is redrawn
    // (every half second) after input 2's outcome whatever the machine's pace: a throttled
    // draw could otherwise leave "2 created" to the summary alone (a CI run did).
    const server = await faultServer((_req, res, n) => {
      if (n === 2) {
        reply(res, 429, '{"code":"slow","message":"slow down","status":429}', {
          'retry-after': '1',
        });
      } else if (n === 4) {
        setTimeout(() => reply(res, 201, '{"id":4,"name":"p","categoryId":1}'), 700);
      } else reply(res, 201, `{"id":${n},"name":"p","categoryId":1}`);
    });
    const result = await run(['pets', 'add', '--file', '-', '--concurrency', '1'], {
      env: { ...envFor(server.url), NO_COLOR: '1' },
      stdin: `${lines(3).join('\n')}\n`,
      tty: { stderr: true },
      timing: { sleep: (ms) => new Promise((resolve) => setTimeout(resolve, Math.min(ms, 600))) },
    });
    expect(result.code).toBe(0);
    const drawn = result.stderr.replace(/\d+\/s/g, 'N/s').split('\r\u001b[K');
    expect(drawn).toContain('1 created, 0 failed (N/s); HTTP 429: slowing down');
    // Until the next outcome only.
    expect(drawn).toContain('2 created, 0 failed (N/s)');
  });

  it('says it is waiting for a server that stalls before its first answer', async () => {
    const { server } = await slowServer(() => 2600);
    const result = await run(['pets', 'add', '--file', '-'], {
      env: { ...envFor(server.url), NO_COLOR: '1' },
      stdin: `${lines(1)[0]}\n`,
      tty: { stderr: true },
    });
    expect(result.code).toBe(0);
    const drawn = result.stderr.replace(/\d+\/s/g, 'N/s').split('\r\u001b[K');
    expect(
      drawn.some((text) =>
        /^0 created, 0 failed \(N\/s\); waiting for the server \([12] s\)$/.test(text),
      ),
    ).toBe(true);
  });

  it('counts the wait for the server from when a request is in flight, not from the last outcome', async () => {
    // After 1.7 s of waiting for input, a request answered in 0.7 s was "waiting (2 s)". The
    // first request is seen in flight too (0.6 s), so that its wait is forgotten once it ends.
    const { server } = await slowServer(() => (server.seen.length === 2 ? 700 : 600));
    const stdin = new PassThrough();
    const pending = run(['pets', 'add', '--file', '-', '--concurrency', '1'], {
      env: { ...envFor(server.url), NO_COLOR: '1' },
      stdin,
      tty: { stderr: true },
    });
    stdin.write(`${lines(1)[0]}\n`);
    await new Promise((resolve) => setTimeout(resolve, 1700));
    stdin.end(`${lines(2)[1]}\n`);
    const result = await pending;
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('1 created, 0 failed');
    expect(result.stderr).not.toContain('waiting');
  });

  it('does not blame the server while it waits for its own input (--dry-run sends nothing)', async () => {
    const stdin = new PassThrough();
    const pending = run(['pets', 'add', '--file', '-', '--dry-run'], {
      env: baseEnv({ NO_COLOR: '1' }),
      stdin,
      tty: { stderr: true },
    });
    stdin.write('{"name":"a","categoryId":1}\n');
    await new Promise((resolve) => setTimeout(resolve, 1700));
    stdin.end('{"name":"b","categoryId":1}\n');
    const result = await pending;
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('1 valid, 0 failed');
    expect(result.stderr).not.toContain('waiting');
  });
});

describe('pets add --file: what a terminal and a summary show', () => {
  it('draws no progress line while the animals are typed at the terminal (--file -)', async () => {
    // It stayed at the start of the line being typed: "1 created, 0 failed (1/s){"name":…".
    const result = await run(['pets', 'add', '--file', '-', '--dry-run'], {
      env: baseEnv({ NO_COLOR: '1' }),
      stdin: '{"name":"a"}\n{"name":"c","categoryId":1}\n',
      tty: { stdin: true, stderr: true },
    });
    expect(result.code).toBe(3);
    // Nor a rate, which would be the rate of typing ("0/s").
    expect(result.stderr.replace(/in \d+\.\d s/, 'in T s')).toBe(
      'Reading animals from the terminal, one JSON object per line; Ctrl-D to finish\n' +
        'error: input 1 (line 1): categoryId is required\n' +
        'Checked 2 inputs: 1 valid, 1 failed (input 1), nothing was sent in T s\n',
    );
  });

  /** One animal and half of the next typed at the terminal (stdin and stdout are one),
   * then Ctrl-C; `stderrIsTTY`: whether stderr is that terminal too. */
  async function typedThenCtrlC(stderrIsTTY: boolean) {
    const { server } = await slowServer(() => 1);
    const stdin = new PassThrough();
    const controller = new AbortController();
    const pending = run(['pets', 'add', '--file', '-'], {
      env: { ...envFor(server.url), NO_COLOR: '1' },
      stdin,
      signal: controller.signal,
      tty: { stdin: true, stdout: true, stderr: stderrIsTTY },
      // Wide enough for the summary on one line (an 80-column one wraps it between words).
      columns: 120,
    });
    stdin.write(`${lines(1)[0]}\n{"name":"D","cat`);
    while (server.seen.length < 1) await new Promise((resolve) => setTimeout(resolve, 10));
    await new Promise((resolve) => setTimeout(resolve, 50));
    controller.abort();
    const result = await pending;
    // Input 1's answer is usually in by then; on a busy machine it may still be in flight, and
    // the Ctrl-C says so (nothing on a terminal shows when it is in: the table waits for its
    // end). Either way the same lines follow.
    const stderr = result.stderr.replace(
      'waiting for 1 request in flight (Ctrl-C again to quit at once)\n',
      '',
    );
    return { result: { ...result, stderr }, url: server.url };
  }

  it('ends the line being typed at a Ctrl-C, so that what follows starts a line of its own', async () => {
    // The table's header came right after the half-typed `{"name":"D","cat^C`.
    const { result, url } = await typedThenCtrlC(true);
    expect(result.code).toBe(130);
    expect(result.stderr.replace(/in \d+\.\d s/, 'in T s')).toBe(
      'Reading animals from the terminal, one JSON object per line; Ctrl-D to finish\n' +
        `Using profile production (${url}, from STORE_BASE_URL)\n` +
        '\n' +
        '1 created, 0 failed, 0 uncertain, 0 not sent in T s; interrupted: inputs after 1 were not sent\n' +
        // On a terminal, a flag a line: no line is wrapped or cut, and a first line pasted
        // alone waits for the rest instead of importing everything again.
        'hint: resume with: store pets add \\\n  --file - \\\n  --skip 1\n',
    );
  });

  it('adds no blank line to a stderr that is not the terminal (2>err.txt) at that Ctrl-C', async () => {
    const { result } = await typedThenCtrlC(false);
    expect(result.code).toBe(130);
    // The screen's line ends on stdout then, before the table's rows.
    expect(result.stdout.startsWith('\nID  ')).toBe(true);
    expect(result.stderr).toBe(
      'Reading animals from the terminal, one JSON object per line; Ctrl-D to finish\n' +
        '1 created, 0 failed, 0 uncertain, 0 not sent; interrupted: inputs after 1 were not sent\n' +
        'hint: resume with: store pets add --file - --skip 1\n',
    );
  });

  it('redraws the progress line under each error line with the counts of now', async () => {
    const result = await run(['pets', 'add', '--file', '-', '--dry-run'], {
      env: baseEnv({ NO_COLOR: '1' }),
      stdin: '{"name":"a"}\n{"name":"b"}\n{"name":"c","categoryId":1}\n{"name":"d"}\n',
      tty: { stderr: true },
      columns: 120,
    });
    const line = (text: string) => `\r\u001b[K${text}`;
    expect(result.code).toBe(3);
    expect(result.stderr.replace(/\d+\/s/g, 'N/s').replace(/in \d+\.\d s/, 'in T s')).toBe(
      line('0 valid, 1 failed (N/s)') +
        line('error: input 1 (line 1): categoryId is required\n') +
        line('0 valid, 1 failed (N/s)') +
        line('0 valid, 2 failed (N/s)') +
        line('error: input 2 (line 2): categoryId is required\n') +
        line('0 valid, 2 failed (N/s)') +
        line('1 valid, 3 failed (N/s)') +
        line('error: input 4 (line 4): categoryId is required\n') +
        line('1 valid, 3 failed (N/s)') +
        line(
          'Checked 4 inputs: 1 valid, 3 failed (inputs 1-2, 4), nothing was sent in T s (N/s)\n',
        ),
    );
  });

  it('names at most ten ranges of inputs in the summary, and counts the rest', () => {
    expect(ranges([1, 2, 3, 5, 7, 8])).toBe('1-3, 5, 7-8');
    const odd = Array.from({ length: 30 }, (_, i) => 2 * i + 1);
    expect(ranges(odd)).toBe('1, 3, 5, 7, 9, 11, 13, 15, 17, 19 and 20 more');
    expect(ranges([...odd.slice(0, 10), 100, 101, 102])).toBe(
      '1, 3, 5, 7, 9, 11, 13, 15, 17, 19 and 3 more',
    );
  });
});

describe('pets add --file at scale: stop, slow down, resume', () => {
  const PET_LINE = (i: number) => `{"name":"p${i}","categoryId":1}`;
  const stdinOf = (count: number) =>
    `${Array.from({ length: count }, (_, k) => PET_LINE(k + 1)).join('\n')}\n`;
  const createdOf = (body: string, id: number) => JSON.stringify({ id, ...JSON.parse(body) });

  it('resends a POST answered 429 after Retry-After, and succeeds: each input created once', async () => {
    const answered = new Map<string, number>();
    const server = await faultServer((_req, res, n) => {
      const body = server.seen[n - 1]?.body ?? '';
      const times = (answered.get(body) ?? 0) + 1;
      answered.set(body, times);
      if (times <= 2) reply(res, 429, '', { 'retry-after': '1' });
      else reply(res, 201, createdOf(body, n));
    });
    const sleeps: number[] = [];
    const result = await run(['pets', 'add', '--file', '-', '--json', '--concurrency', '2'], {
      env: envFor(server.url),
      stdin: stdinOf(3),
      sleeps,
    });
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n').filter(Boolean)).toHaveLength(3);
    // Three POSTs per input: two 429s, then 201.
    expect([...answered.values()]).toEqual([3, 3, 3]);
    expect(sleeps).toEqual(Array(6).fill(1000));
  });

  it('gives up on an input still answered 429 after 5 resends (6 POSTs): exit 7', async () => {
    const server = await faultServer((_req, res) => {
      setTimeout(
        () => reply(res, 429, '{"code":"rate_limited","message":"slow down","status":429}'),
        5,
      );
    });
    const result = await run(['pets', 'add', '--file', '-', '--json', '--concurrency', '8'], {
      env: envFor(server.url),
      stdin: stdinOf(1),
    });
    expect(server.seen).toHaveLength(6);
    expect(result).toEqual({
      code: 7,
      stdout:
        '{"input":1,"line":1,"error":{"code":"rate_limited","message":"slow down","status":429,"hint":"still failing after 6 attempts; try again later"}}\n',
      stderr: '{"summary":{"created":0,"failed":1,"uncertain":0,"notSent":0}}\n',
      prompts: [],
    });
  });

  it('cuts the number of requests in flight while 429s keep coming, then raises it again', async () => {
    let inFlight = 0;
    const arrivals: number[] = [];
    const held: (() => void)[] = [];
    const server = await faultServer((_req, res, n) => {
      inFlight += 1;
      arrivals.push(inFlight);
      const answer = () => {
        inFlight -= 1;
        if (n <= 8) reply(res, 429, '');
        else reply(res, 201, createdOf(server.seen[n - 1]?.body ?? '{}', n));
      };
      if (n > 8) return void setTimeout(answer, 20);
      // The first 8 requests are refused: once all 8 are in flight, the first at once, the
      // other 7 a while later (a timer for the first failed on a busy machine: the 8th had
      // not arrived yet).
      held.push(answer);
      if (n === 8) {
        held[0]?.();
        setTimeout(() => {
          for (const later of held.slice(1)) later();
        }, 200);
      }
    });
    const result = await run(['pets', 'add', '--file', '-', '--json', '--concurrency', '8'], {
      env: envFor(server.url),
      stdin: stdinOf(60),
    });
    expect(result.code).toBe(0);
    expect(result.stdout.split('\n').filter(Boolean)).toHaveLength(60);
    // The 8 inputs refused were each sent again.
    expect(server.seen).toHaveLength(68);
    expect(arrivals.slice(0, 8)).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    // The first 429 halved the limit (8 → 4): the resend of input 1 waited until fewer than 4
    // were in flight (without the cut it goes at once, into the 7 held requests: 8 in flight).
    expect(arrivals[8]).toBeLessThanOrEqual(4);
    // …and it rose again after successes: the end of the import has more than 4 in flight.
    expect(Math.max(...arrivals.slice(8))).toBeGreaterThan(4);
  });

  it('goes on after an input refused with 429 to the end: a rate limit stops nothing', async () => {
    const server = await faultServer((_req, res, n) => {
      const body = server.seen[n - 1]?.body ?? '';
      if (body.includes('"p1"')) reply(res, 429, '');
      else reply(res, 201, createdOf(body, 2));
    });
    const result = await run(['pets', 'add', '--file', '-', '--json', '--concurrency', '1'], {
      env: envFor(server.url),
      stdin: stdinOf(2),
    });
    expect(server.seen.map((r) => r.body)).toEqual([...Array(6).fill(PET_LINE(1)), PET_LINE(2)]);
    expect(result).toEqual({
      code: 7,
      stdout:
        '{"input":1,"line":1,"error":{"code":"http_429","message":"the server answered too many requests","status":429,"hint":"still failing after 6 attempts; try again later"}}\n' +
        `${createdOf(PET_LINE(2), 2)}\n`,
      stderr: '{"summary":{"created":1,"failed":1,"uncertain":0,"notSent":0}}\n',
      prompts: [],
    });
  });

  it('shows the server’s control characters as escapes in the line for the inputs not sent', async () => {
    const server = await faultServer((_req, res) =>
      reply(res, 401, '{"code":"unauthorized","message":"no\\u001b]0;x\\u0007","status":401}'),
    );
    const result = await run(['pets', 'add', '--file', '-', '--concurrency', '1'], {
      env: envFor(server.url),
      stdin: stdinOf(3),
    });
    const message = 'no\\x1b]0;x\\x07';
    expect(result).toEqual({
      code: 4,
      stdout: '',
      stderr:
        `error: input 1 (line 1): ${message} (unauthorized, HTTP 401)\n` +
        'hint: the key came from STORE_API_KEY\n' +
        `error: inputs 2-3 not sent: input 1 failed: ${message}\n` +
        '0 created, 1 failed (input 1), 0 uncertain, 2 not sent (inputs 2-3)\n' +
        'hint: resume with: store pets add --file - --concurrency 1 --skip 1\n',

      prompts: [],
    });
  });

  it.runIf(process.platform === 'linux')(
    'says at the end that --failed could not be written (a file size limit), with no stack trace',
    async () => {
      // A regular file that refuses writes: over the process's file size limit (EFBIG), as a
      // full disk refuses them (a device such as /dev/full is refused when it is named).
      const server = await faultServer((_req, res) =>
        reply(res, 400, '{"code":"bad","message":"no","status":400}'),
      );
      const failed = join(tempDir(), 'retry.ndjson');
      const long = `{"name":"${'x'.repeat(2000)}","categoryId":1}`;
      const child = spawn(
        'sh',
        [
          '-c',
          'ulimit -f 1; exec "$0" "$@"',
          process.execPath,
          BIN,
          'pets',
          'add',
          '--file',
          '-',
          '--json',
          '--failed',
          failed,
          '--concurrency',
          '2',
        ],
        { env: processEnv({ STORE_API_KEY: 'bulk-key', STORE_BASE_URL: server.url }) },
      );
      child.stdin.end(`${long}\n${long}\n`);
      const result = await collect(child);
      expect(server.seen).toHaveLength(2);
      expect(result).toEqual({
        code: 3,
        signal: null,
        stdout:
          '{"input":1,"line":1,"error":{"code":"bad","message":"no","status":400}}\n' +
          '{"input":2,"line":2,"error":{"code":"bad","message":"no","status":400}}\n',
        stderr:
          `{"summary":{"created":0,"failed":2,"uncertain":0,"notSent":0,"failedFile":"${failed}"}}\n` +
          `{"error":{"code":"failed_file","message":"cannot write --failed ${failed}: file too large (EFBIG); it does not hold every input it should","status":null}}\n`,
      });
    },
  );

  it.each([
    ['a device', () => '/dev/null', 'a device'],
    ['a symbolic link', () => linkTo(join(tempDir(), 'elsewhere.ndjson')), 'a symbolic link'],
    ['a folder', () => tempDir(), 'a directory'],
  ])('refuses --failed naming %s: exit 2, nothing sent', async (_what, path, kind) => {
    const server = await faultServer((_req, res) => reply(res, 201, '{}'));
    const failed = path();
    const result = await run(['pets', 'add', '--file', '-', '--failed', failed], {
      env: envFor(server.url),
      stdin: stdinOf(2),
    });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: cannot write --failed ${failed}: it is ${kind}, not a regular file\n`,
      prompts: [],
    });
    expect(server.seen).toHaveLength(0);
  });

  it.runIf(process.platform !== 'win32')(
    'refuses a FIFO as --failed or --uncertain at once, without waiting for a reader: exit 2, nothing sent',
    async () => {
      const server = await faultServer((_req, res) => reply(res, 201, '{}'));
      const dir = tempDir();
      const fifo = join(dir, 'fifo');
      execFileSync('mkfifo', [fifo]);
      for (const flags of [
        ['--failed', fifo],
        ['--failed', join(dir, 'f'), '--uncertain', fifo],
      ]) {
        const started = performance.now();
        const result = await run(['pets', 'add', '--file', '-', ...flags], {
          env: envFor(server.url),
          stdin: stdinOf(2),
        });
        expect(performance.now() - started).toBeLessThan(5000);
        expect(result).toEqual({
          code: 2,
          stdout: '',
          stderr: `error: cannot write ${flags.at(-2)} ${fifo}: it is a FIFO (named pipe), not a regular file\n`,
          prompts: [],
        });
      }
      expect(server.seen).toHaveLength(0);
    },
  );

  it('refuses --failed, --uncertain and --journal naming one file, or --uncertain naming the input: exit 2, nothing sent', async () => {
    const server = await faultServer((_req, res) => reply(res, 201, '{}'));
    const dir = tempDir();
    const input = join(dir, 'animals.ndjson');
    writeFileSync(input, stdinOf(1));
    const same = join(dir, 'out.ndjson');
    const cases: [string[], string][] = [
      [
        ['--failed', same, '--uncertain', same],
        `--failed and --uncertain name the same file (${same}): give each its own`,
      ],
      [
        ['--failed', `${same}`, '--journal', `${same}.uncertain`],
        `--uncertain and --journal name the same file (${same}.uncertain): give each its own`,
      ],
      [
        ['--uncertain', input],
        `--uncertain ${input} is the --file being read: it would be emptied before it is read; write the uncertain inputs to another file`,
      ],
    ];
    for (const [flags, message] of cases) {
      const result = await run(['pets', 'add', '--file', input, ...flags], {
        env: envFor(server.url),
      });
      expect(result).toEqual({ code: 2, stdout: '', stderr: `error: ${message}\n`, prompts: [] });
    }
    expect(server.seen).toHaveLength(0);
    expect(readFileSync(input, 'utf8')).toBe(stdinOf(1));
  });

  it('refuses a --failed file that cannot be written: exit 2, nothing sent', async () => {
    const server = await faultServer((_req, res) => reply(res, 201, '{}'));
    const failed = join(tempDir(), 'no', 'such', 'retry.ndjson');
    const result = await run(['pets', 'add', '--file', '-', '--failed', failed], {
      env: envFor(server.url),
      stdin: stdinOf(2),
    });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: cannot write --failed ${failed}: no such file or directory\n`,
      prompts: [],
    });
    expect(server.seen).toHaveLength(0);
  });

  it('with 8 requests in flight refused (401), says the hint once for the run, and one short line per input', async () => {
    // The 3-line hint came once per request in flight: 8 copies.
    // All 8 answered once all are in flight: input 1's first, the others 100 ms later (by
    // name: they may arrive in any order), so that input 1 is the one that stopped the import.
    const held = new Map<number, () => void>();
    const server = await faultServer((_req, res, n) => {
      const input = Number(JSON.parse(server.seen[n - 1]?.body ?? '{}').name.slice(1));
      held.set(input, () => reply(res, 401, '{"code":"unauthorized","message":"no","status":401}'));
      if (held.size < 8) return;
      held.get(1)?.();
      setTimeout(() => {
        for (const [k, answer] of held) if (k !== 1) answer();
      }, 100);
    });
    const result = await run(['pets', 'add', '--file', '-'], {
      env: envFor(server.url),
      stdin: stdinOf(10),
    });
    expect(server.seen).toHaveLength(8);
    expect(result).toEqual({
      code: 4,
      stdout: '',
      stderr:
        'error: input 1 (line 1): no (unauthorized, HTTP 401)\nhint: the key came from STORE_API_KEY\n' +
        [2, 3, 4, 5, 6, 7, 8]
          .map((n) => `error: input ${n} (line ${n}): no (unauthorized, HTTP 401)\n`)
          .join('') +
        'error: inputs 9-10 not sent: input 1 failed: no\n' +
        '0 created, 8 failed (inputs 1-8), 0 uncertain, 2 not sent (inputs 9-10)\n' +
        'hint: resume with: store pets add --file - --skip 8\n',
      prompts: [],
    });
  });

  it('names the failure that stopped the import: the first to come back, not a later one', async () => {
    // Input 1's 401 comes back after input 2's: input 2 stopped the import. By name, and input
    // 1's answer waits for input 2's to be written: the two requests may arrive in either order
    // (p2 arriving first got "refused 1" and the wait), and a wait counted from input 1's arrival
    // ran out before input 2 arrived on a busy machine.
    let input1: (() => void) | undefined;
    let input2Answered = false;
    const server = await faultServer((_req, res, n) => {
      const input = Number(JSON.parse(server.seen[n - 1]?.body ?? '{}').name.slice(1));
      const answer = () =>
        reply(res, 401, `{"code":"unauthorized","message":"refused ${input}","status":401}`);
      if (input === 1) {
        if (input2Answered) answer();
        else input1 = answer;
        return;
      }
      res.on('finish', () =>
        setTimeout(() => {
          input2Answered = true;
          input1?.();
        }, 150),
      );
      answer();
    });
    const result = await run(['pets', 'add', '--file', '-', '--concurrency', '2'], {
      env: envFor(server.url),
      stdin: stdinOf(4),
    });
    expect(server.seen).toHaveLength(2);
    expect(result.code).toBe(4);
    expect(result.stderr).toBe(
      'error: input 1 (line 1): refused 1 (unauthorized, HTTP 401)\nhint: the key came from STORE_API_KEY\n' +
        'error: input 2 (line 2): refused 2 (unauthorized, HTTP 401)\n' +
        'error: inputs 3-4 not sent: input 2 failed: refused 2\n' +
        '0 created, 2 failed (inputs 1-2), 0 uncertain, 2 not sent (inputs 3-4)\n' +
        'hint: resume with: store pets add --file - --concurrency 2 --skip 2\n',
    );
  });

  it('--failed also holds the inputs not sent after a stop (401), as given', async () => {
    const failed = join(tempDir(), 'retry.ndjson');
    const server = await faultServer((_req, res) =>
      reply(res, 401, '{"code":"unauthorized","message":"no","status":401}'),
    );
    const input = `${PET_LINE(1)}\n{"name":"p2","categoryId":9007199254740993}\n${PET_LINE(3)}\n`;
    const result = await run(
      ['pets', 'add', '--file', '-', '--json', '--concurrency', '1', '--failed', failed],
      { env: envFor(server.url), stdin: input },
    );
    expect(server.seen.map((r) => r.body)).toEqual([PET_LINE(1)]);
    expect(result).toEqual({
      code: 4,
      stdout:
        '{"input":1,"line":1,"error":{"code":"unauthorized","message":"no","status":401,"hint":"the key came from STORE_API_KEY"}}\n' +
        '{"input":2,"error":{"code":"not_sent","message":"input 1 failed: no","status":null}}\n' +
        '{"input":3,"error":{"code":"not_sent","message":"input 1 failed: no","status":null}}\n',
      stderr:
        '{"error":{"code":"not_sent","message":"inputs 2-3 not sent: input 1 failed: no","status":null,"hint":"the key came from STORE_API_KEY"}}\n' +
        `{"summary":{"created":0,"failed":1,"uncertain":0,"notSent":2,"failedFile":"${failed}","hint":"resume with: store pets add --file - --json --concurrency 1 --failed ${failed} --skip 1"}}\n`,
      prompts: [],
    });
    expect(readFileSync(failed, 'utf8')).toBe(input);
    // Nothing was uncertain: no file beside it.
    expect(existsSync(`${failed}.uncertain`)).toBe(false);
  });

  it('--failed writes every input not created, as given, ready to run again; --skip resumes', async () => {
    const dir = tempDir();
    const failed = join(dir, 'retry.ndjson');
    const server = await faultServer((_req, res, n) => {
      const body = server.seen[n - 1]?.body ?? '';
      if (body.includes('"p3"')) reply(res, 400, '{"code":"bad","message":"no","status":400}');
      else reply(res, 201, createdOf(body, n));
    });
    // Input 3, refused, holds an int64: --failed writes it digit for digit.
    const p3 = '{"name":"p3","categoryId":9007199254740993}';
    const input = `${PET_LINE(1)}\n{"name":"p2","categoryId":9007199254740993,"extra":[1]}\n${p3}\n{"name":"p4"}\nnot json\n`;
    const first = await run(['pets', 'add', '--file', '-', '--json', '--failed', failed], {
      env: envFor(server.url),
      stdin: input,
    });
    expect(first.code).toBe(3);
    expect(readFileSync(failed, 'utf8')).toBe(`${p3}\n{"name":"p4"}\nnot json\n`);
    // --skip 2: only inputs 3, 4 and 5 are considered.
    const seenBefore = server.seen.length;
    const resumed = await run(['pets', 'add', '--file', '-', '--json', '--skip', '2'], {
      env: envFor(server.url),
      stdin: input,
    });
    expect(server.seen.slice(seenBefore).map((r) => r.body)).toEqual([p3]);
    expect(resumed).toEqual({
      code: 3,
      stdout:
        '{"input":3,"line":3,"error":{"code":"bad","message":"no","status":400}}\n' +
        '{"input":4,"line":4,"error":{"code":"invalid_input","message":"categoryId is required","status":null}}\n' +
        '{"input":5,"line":5,"error":{"code":"invalid_json","message":"not valid JSON","status":null}}\n',
      stderr: '{"summary":{"created":0,"failed":3,"uncertain":0,"notSent":0}}\n',

      prompts: [],
    });
  });

  it('the resume advice of a stopped import keeps its --failed: the inputs not sent leave it as this run sends them', async () => {
    const dir = tempDir();
    const input = join(dir, 'animals.ndjson');
    const failed = join(dir, 'retry.ndjson');
    const lines = [1, 2, 3, 4, 5].map((i) => `{"name":"p${i}","categoryId":${i}}`);
    writeFileSync(input, `${lines.join('\n')}\n`);
    const server = await faultServer((req, res, n) => {
      const body = server.seen[n - 1]?.body ?? '';
      if (req.headers.authorization !== 'Bearer good') {
        reply(res, 401, '{"code":"unauthorized","message":"bad key","status":401}');
      } else if (body.includes('"p2"'))
        reply(res, 400, '{"code":"bad","message":"no","status":400}');
      else reply(res, 201, createdOf(body, n));
    });
    const env = (key: string) =>
      baseEnv({ STORE_API_KEY: key, STORE_BASE_URL: server.url, XDG_CACHE_HOME: tempDir() });
    const cache = env('').XDG_CACHE_HOME;
    const args = ['pets', 'add', '--file', input, '--concurrency', '1', '--failed', failed];
    // A rejected key stops the import at input 1: inputs 2-5 are not sent, and --failed holds
    // all five (certainly not created).
    const first = await run(args, { env: { ...env('bad'), XDG_CACHE_HOME: cache } });
    expect(first.code).toBe(4);
    expect(first.stderr).toContain(
      `hint: resume with: store pets add --file ${input} --concurrency 1 --failed ${failed} --skip 1\n`,
    );
    expect(readFileSync(failed, 'utf8')).toBe(`${lines.join('\n')}\n`);
    // Runs that end before they begin (no key at all, a --skip past the end) change neither
    // --failed nor the journal the advice needs.
    const noKey = await run([...args, '--skip', '1'], {
      env: { ...env('good'), STORE_API_KEY: undefined, XDG_CACHE_HOME: cache },
    });
    expect(noKey.code).toBe(4);
    const past = await run([...args, '--skip', '50'], {
      env: { ...env('good'), XDG_CACHE_HOME: cache },
    });
    expect(past.code).toBe(2);
    expect(server.seen).toHaveLength(1);
    expect(readFileSync(failed, 'utf8')).toBe(`${lines.join('\n')}\n`);
    // The advice, run with a good key: it sends 2-5; --failed keeps input 1, loses the four it
    // sends, and gains input 2, refused now.
    const resumed = await run([...args, '--skip', '1'], {
      env: { ...env('good'), XDG_CACHE_HOME: cache },
    });
    expect(resumed.code).toBe(3);
    expect(server.seen.slice(1).map((r) => r.body)).toEqual(lines.slice(1));
    expect(readFileSync(failed, 'utf8')).toBe(`${lines[0]}\n${lines[1]}\n`);
  });

  it('the resume advice after a Ctrl-C keeps --failed and --uncertain as the first run left them', async () => {
    const dir = tempDir();
    const input = join(dir, 'animals.ndjson');
    const failed = join(dir, 'retry.ndjson');
    const lines = [1, 2, 3, 4].map((i) => `{"name":"p${i}","categoryId":${i}}`);
    writeFileSync(input, `{"name":"p0"}\n${lines.join('\n')}\n`);
    const controller = new AbortController();
    const server = await faultServer((_req, res, n) => {
      const body = server.seen[n - 1]?.body ?? '';
      // Input 2: the connection cut once the request is in (uncertain); then Ctrl-C.
      if (body.includes('"p1"')) {
        res.socket?.destroy();
        controller.abort();
      } else reply(res, 201, createdOf(body, n));
    });
    const env = baseEnv({
      STORE_API_KEY: 'k',
      STORE_BASE_URL: server.url,
      XDG_CACHE_HOME: tempDir(),
    });
    const args = ['pets', 'add', '--file', input, '--concurrency', '1', '--failed', failed];
    const first = await run(args, { env, signal: controller.signal });
    expect(first.code).toBe(130);
    expect(first.stderr).toContain(
      `hint: resume with: store pets add --file ${input} --concurrency 1 --failed ${failed} --skip 2\n`,
    );
    const kept = { failed: '{"name":"p0"}\n', uncertain: `${lines[0]}\n` };
    expect(readFileSync(failed, 'utf8')).toBe(kept.failed);
    expect(readFileSync(`${failed}.uncertain`, 'utf8')).toBe(kept.uncertain);
    const resumed = await run([...args, '--skip', '2'], { env });
    expect(resumed.code).toBe(0);
    expect(server.seen.slice(1).map((r) => r.body)).toEqual(lines.slice(1));
    expect(readFileSync(failed, 'utf8')).toBe(kept.failed);
    expect(readFileSync(`${failed}.uncertain`, 'utf8')).toBe(kept.uncertain);
  });

  it('--skip without the journal of the import it continues begins afresh: --failed is emptied', async () => {
    const failed = join(tempDir(), 'retry.ndjson');
    writeFileSync(failed, `${PET_LINE(7)}\n`);
    const server = await faultServer((_req, res, n) =>
      reply(res, 201, createdOf(server.seen[n - 1]?.body ?? '', n)),
    );
    const result = await run(['pets', 'add', '--file', '-', '--failed', failed, '--skip', '1'], {
      env: envFor(server.url),
      stdin: `${PET_LINE(1)}\n${PET_LINE(2)}\n`,
    });
    expect(result.code).toBe(0);
    expect(server.seen.map((r) => r.body)).toEqual([PET_LINE(2)]);
    expect(readFileSync(failed, 'utf8')).toBe('');
  });

  it('--failed and --uncertain keep what an earlier run wrote when the input is refused before the import begins', async () => {
    const dir = tempDir();
    const failed = join(dir, 'retry.ndjson');
    const before = { failed: `${PET_LINE(7)}\n`, uncertain: `${PET_LINE(8)}\n` };
    writeFileSync(failed, before.failed);
    writeFileSync(`${failed}.uncertain`, before.uncertain);
    const server = await faultServer((_req, res) => reply(res, 500, ''));
    for (const [args, stdin] of [
      [[], 'name,categoryId\nRex,1\n'],
      [['--skip', '5'], `${PET_LINE(1)}\n`],
    ] as const) {
      const result = await run(['pets', 'add', '--file', '-', '--failed', failed, ...args], {
        env: envFor(server.url),
        stdin,
      });
      expect(result.code).toBe(2);
      expect(readFileSync(failed, 'utf8')).toBe(before.failed);
      expect(readFileSync(`${failed}.uncertain`, 'utf8')).toBe(before.uncertain);
    }
    expect(server.seen).toEqual([]);
    // An empty input is an import of nothing: the files are its own, empty.
    const empty = await run(['pets', 'add', '--file', '-', '--failed', failed], {
      env: envFor(server.url),
      stdin: '',
    });
    expect(empty.code).toBe(0);
    expect(readFileSync(failed, 'utf8')).toBe('');
    expect(existsSync(`${failed}.uncertain`)).toBe(false);
  });

  it('writes its --json stderr lines whole on a terminal, however narrow', async () => {
    const server = await faultServer((_req, res) =>
      reply(
        res,
        400,
        '{"code":"bad","message":"the name is taken by another animal of this store","status":400}',
      ),
    );
    const result = await run(['pets', 'add', '--file', '-', '--json'], {
      env: envFor(server.url),
      stdin: `${PET_LINE(1)}\n`,
      tty: { stderr: true },
      columns: 30,
    });
    expect(result.code).toBe(3);
    // After the profile line and the progress line a terminal has (text: docs/messages.md).
    const summary = '{"summary":{"created":0,"failed":1,"uncertain":0,"notSent":0}}\n';
    expect(result.stderr.endsWith(summary)).toBe(true);
  });

  it('--failed is emptied when the import starts, and holds a JSON array’s inputs too', async () => {
    const failed = join(tempDir(), 'retry.ndjson');
    // Left by an earlier import: kept, it would be sent again with this one's failures.
    writeFileSync(failed, `${PET_LINE(7)}\n`);
    const server = await faultServer((_req, res, n) => {
      const body = server.seen[n - 1]?.body ?? '';
      if (body.includes('"p2"')) reply(res, 400, '{"code":"bad","message":"no","status":400}');
      else reply(res, 201, createdOf(body, n));
    });
    const p2 = '{"name":"p2","categoryId":2}';
    const result = await run(['pets', 'add', '--file', '-', '--failed', failed], {
      env: envFor(server.url),
      stdin: `[\n  ${PET_LINE(1)},\n  ${p2},\n  {"name": "p3"}\n]\n`,
    });
    expect(result.code).toBe(3);
    expect(readFileSync(failed, 'utf8')).toBe(`${p2}\n{"name":"p3"}\n`);
  });

  it('refuses --failed naming the input file (or a link to it): the file is left whole, nothing sent', async () => {
    const dir = tempDir();
    const input = join(dir, 'retry.ndjson');
    writeFileSync(input, stdinOf(3));
    linkSync(input, join(dir, 'link.ndjson'));
    const server = await faultServer((_req, res) => reply(res, 500, ''));
    symlinkSync(input, join(dir, 'symlink.ndjson'));
    const names = ['.', 'link.ndjson', 'symlink.ndjson'];
    for (const failed of [
      input,
      ...names.map((name) => join(dir, name === '.' ? './retry.ndjson' : name)),
    ]) {
      const result = await run(['pets', 'add', '--file', input, '--failed', failed], {
        env: envFor(server.url),
      });
      expect(result).toEqual({
        code: 2,
        stdout: '',
        stderr: `error: --failed ${failed} is the --file being read: it would be emptied before it is read; write the failures to another file\n`,
        prompts: [],
      });
    }
    expect(readFileSync(input, 'utf8')).toBe(stdinOf(3));
    expect(server.seen).toHaveLength(0);
  });

  it('refuses --failed naming the file that stdin is read from (--file - < retry.ndjson)', async () => {
    const input = join(tempDir(), 'retry.ndjson');
    writeFileSync(input, stdinOf(2));
    const child = spawn(process.execPath, [BIN, 'pets', 'add', '--file', '-', '--failed', input], {
      env: processEnv({ STORE_API_KEY: 'bulk-key', STORE_BASE_URL: 'http://127.0.0.1:9/v1' }),
      stdio: [openSync(input, 'r'), 'pipe', 'pipe'],
    });
    expect(await collect(child)).toEqual({
      code: 2,
      signal: null,
      stdout: '',
      stderr: `error: --failed ${input} is the --file being read: it would be emptied before it is read; write the failures to another file\n`,
    });
    expect(readFileSync(input, 'utf8')).toBe(stdinOf(2));
  });

  it.runIf(existsSync('/dev/full'))(
    'stops sending once stdout cannot be written (a full disk), and says where to resume',
    async () => {
      // Each answer takes 20 ms; each NDJSON line leaves as its input is answered, so the
      // first write fails (and sending stops) while most of the 40 inputs are still to send.
      const server = await faultServer((_req, res, n) => {
        setTimeout(() => reply(res, 201, createdOf(server.seen[n - 1]?.body ?? '{}', n)), 20);
      });
      const input = join(tempDir(), 'pets.ndjson');
      writeFileSync(input, stdinOf(40));
      const result = await storeOnFullDisk(
        ['pets', 'add', '--file', input, '--json', '--concurrency', '1'],
        processEnv({ STORE_API_KEY: 'bulk-key', STORE_BASE_URL: server.url }),
      );
      const sent = server.seen.length;
      expect(sent).toBeLessThan(40);
      expect(server.seen.map((r) => r.body)).toEqual(
        Array.from({ length: sent }, (_, k) => PET_LINE(k + 1)),
      );
      // Every input sent was created, and --skip resumes at the first one not sent.
      expect(result).toEqual({
        code: 1,
        signal: null,
        stdout: '',
        stderr:
          `${JSON.stringify({ error: { code: 'output_failed', message: `output failed, inputs after ${sent} were not sent`, status: null, hint: `resume with: store pets add --file ${input} --json --concurrency 1 --skip ${sent}` } })}\n` +
          `{"summary":{"created":${sent},"failed":0,"uncertain":0,"notSent":0}}\n` +
          '{"error":{"code":"output_failed","message":"cannot write output: no space left on device (ENOSPC)","status":null}}\n',
      });
    },
  );

  it.runIf(existsSync('/dev/full'))(
    'says what was created when stdout fails only once every input was sent',
    async () => {
      const server = await faultServer((_req, res, n) =>
        reply(res, 201, createdOf(server.seen[n - 1]?.body ?? '{}', n)),
      );
      const input = join(tempDir(), 'pets.ndjson');
      writeFileSync(input, stdinOf(3));
      const env = processEnv({ STORE_API_KEY: 'bulk-key', STORE_BASE_URL: server.url });
      expect(await storeOnFullDisk(['pets', 'add', '--file', input, '--json'], env)).toEqual({
        code: 1,
        signal: null,
        stdout: '',
        stderr:
          '{"error":{"code":"output_failed","message":"output failed once every input had been sent","status":null}}\n' +
          '{"summary":{"created":3,"failed":0,"uncertain":0,"notSent":0}}\n' +
          '{"error":{"code":"output_failed","message":"cannot write output: no space left on device (ENOSPC)","status":null}}\n',
      });
      expect(server.seen).toHaveLength(3);
    },
  );

  it('stdout closed by its reader (| head -1) while inputs remain: exit 1, and where to resume', async () => {
    // Not quiet this time: inputs were left unsent, which the reader leaving does not excuse.
    const server = await faultServer((_req, res, n) => {
      const body = server.seen[n - 1]?.body ?? '{}';
      setTimeout(() => reply(res, 201, createdOf(body, n)), 20);
    });
    const result = await run(['pets', 'add', '--file', '-', '--concurrency', '1'], {
      env: envFor(server.url),
      stdin: stdinOf(40),
      stdoutFails: { afterWrites: 1, code: 'EPIPE' },
    });
    const sent = server.seen.length;
    expect(sent).toBeLessThan(40);
    expect(result).toEqual({
      code: 1,
      stdout: 'ID\tNAME\tCATEGORY\tSTATUS\n',
      stderr:
        `${sent} created, 0 failed, 0 uncertain, 0 not sent; output failed, inputs after ${sent} were not sent\n` +
        `hint: resume with: store pets add --file - --concurrency 1 --skip ${sent}\n`,
      prompts: [],
    });
  });

  it.each([
    ['EPIPE', '2 created, 0 failed, 0 uncertain, 0 not sent\n'],
    [
      'ENOSPC',
      '2 created, 0 failed, 0 uncertain, 0 not sent; output failed once every input had been sent\n' +
        'error: cannot write output: write ENOSPC (ENOSPC)\n',
    ],
  ])(
    'stdout failing (%s) only once every input was sent: the reader left quietly, a full disk said',
    async (code, stderr) => {
      // The first line (the header) is taken; the second input is answered 200 ms later.
      const server = await faultServer((_req, res, n) => {
        const body = server.seen[n - 1]?.body ?? '{}';
        setTimeout(() => reply(res, 201, createdOf(body, n)), n === 1 ? 0 : 200);
      });
      const result = await run(['pets', 'add', '--file', '-', '--concurrency', '1'], {
        env: envFor(server.url),
        stdin: stdinOf(2),
        stdoutFails: { afterWrites: 1, code },
      });
      expect(server.seen).toHaveLength(2);
      expect(result).toEqual({
        code: code === 'EPIPE' ? 0 : 1,
        stdout: 'ID\tNAME\tCATEGORY\tSTATUS\n',
        stderr,
        prompts: [],
      });
    },
  );

  it.each([
    ['before the command starts', false],
    ['while the input is being opened', true],
  ])(
    'ends on a Ctrl-C that came %s: exit 130, nothing sent, nothing said',
    async (_when, later) => {
      const stdin = new PassThrough(); // open and silent
      const controller = new AbortController();
      if (!later) controller.abort();
      const result = await run(['pets', 'add', '--file', '-'], {
        env: envFor('http://127.0.0.1:9/v1'),
        stdin,
        signal: controller.signal,
        // Runs after the command's own check of the signal, before it reads the input.
        restartWithV8Flags: () => {
          controller.abort();
          return true;
        },
      });
      stdin.destroy();
      expect(result).toEqual({ code: 130, stdout: '', stderr: '', prompts: [] });
    },
  );

  it.each([
    [
      ['--json'],
      '{"error":{"code":"interrupted","message":"interrupted: inputs after 2 were not sent","status":null,"hint":"resume with: store pets add --file - --json --concurrency 2 --skip 2"}}\n' +
        '{"summary":{"created":1,"failed":1,"uncertain":0,"notSent":1}}\n',
    ],
    // In a pipe without --json: the summary, which says it too.
    [
      [],
      '1 created, 1 failed (input 1), 0 uncertain, 1 not sent (input 3); interrupted: inputs after 2 were not sent\n' +
        'hint: resume with: store pets add --file - --concurrency 2 --skip 2\n',
    ],
  ])(
    'after a stop (401) and a Ctrl-C, the --skip offered resumes at the first input not sent (%j)',
    async (flags, last) => {
      // Input 1 is refused (401), input 2 answered once the Ctrl-C has come; by name, since the
      // two requests may arrive in either order. The Ctrl-C comes once input 1's failure is
      // out: input 3, read as input 1 leaves the window, is settled (not sent) by then, and
      // input 4 waits for input 2. (Fixed waits of 50 and 300 ms, counted from the arrivals,
      // took p2 arriving first for input 1, and could let the Ctrl-C come before input 3.)
      const controller = new AbortController();
      const server = await faultServer((_req, res, n) => {
        const body = server.seen[n - 1]?.body ?? '{}';
        if (body === PET_LINE(1)) {
          return reply(res, 401, '{"code":"unauthorized","message":"no","status":401}');
        }
        const answer = () => reply(res, 201, createdOf(body, 2));
        if (controller.signal.aborted) answer();
        else controller.signal.addEventListener('abort', answer, { once: true });
      });
      const env = envFor(server.url);
      const { io, out, err } = testIO({ stdin: stdinOf(4) }, env);
      const argv = ['pets', 'add', '--file', '-', ...flags, '--concurrency', '2'];
      const ended = main(argv, { io, env, signal: controller.signal });
      const input1Out = flags.includes('--json') ? '"input":1' : 'error: input 1 (line 1):';
      while (!`${out.text}${err.text}`.includes(input1Out)) {
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      controller.abort();
      expect(await ended).toBe(130);
      expect(server.seen.map((r) => r.body).sort()).toEqual([PET_LINE(1), PET_LINE(2)]);
      expect(err.text.split('\n').slice(-3).join('\n')).toBe(last);
    },
  );

  it('--skip 0 skips nothing: every input is sent, as without --skip', async () => {
    const server = await faultServer((_req, res, n) =>
      reply(res, 201, createdOf(server.seen[n - 1]?.body ?? '', n)),
    );
    const result = await run(['pets', 'add', '--file', '-', '--json', '--skip', '0'], {
      env: envFor(server.url),
      stdin: stdinOf(2),
    });
    expect(server.seen.map((r) => r.body)).toEqual([PET_LINE(1), PET_LINE(2)]);
    expect(result).toEqual({
      code: 0,
      stdout: '{"id":1,"name":"p1","categoryId":1}\n{"id":2,"name":"p2","categoryId":1}\n',
      stderr: '{"summary":{"created":2,"failed":0,"uncertain":0,"notSent":0}}\n',
      prompts: [],
    });
  });

  it('--skip past the last input names how many there are', async () => {
    const result = await run(['pets', 'add', '--file', '-', '--skip', '3'], {
      env: envFor('http://127.0.0.1:9/v1'),
      stdin: stdinOf(3),
    });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: --skip 3 skips every input: the input has 3 objects\n',
      prompts: [],
    });
    const one = await run(['pets', 'add', '--file', '-', '--skip', '1'], {
      env: envFor('http://127.0.0.1:9/v1'),
      stdin: stdinOf(1),
    });
    expect(one.stderr).toBe('error: --skip 1 skips every input: the input has 1 object\n');
  });

  /** Answers each request once a Ctrl-C has come, sent as the second request arrives: both in
   * flight, the whole input read. Ids by name: the two may arrive in either order (p2 arriving
   * first got id 1), and answers after a fixed 300 ms could come before the Ctrl-C. */
  async function ctrlCWithBothInFlight(controller: AbortController) {
    const server = await faultServer((_req, res, n) => {
      const body = server.seen[n - 1]?.body ?? '{}';
      const answer = () => reply(res, 201, createdOf(body, Number(JSON.parse(body).name.slice(1))));
      controller.signal.addEventListener('abort', answer, { once: true });
      if (n === 2) controller.abort();
    });
    return server;
  }

  it('a Ctrl-C once every input was sent offers no --skip: there is nothing left to resume', async () => {
    const controller = new AbortController();
    const server = await ctrlCWithBothInFlight(controller);
    const result = await run(['pets', 'add', '--file', '-', '--json'], {
      env: envFor(server.url),
      stdin: stdinOf(2),
      signal: controller.signal,
    });
    expect(server.seen.map((r) => r.body).sort()).toEqual([PET_LINE(1), PET_LINE(2)]);
    expect(result).toEqual({
      code: 130,
      stdout: `${createdOf(PET_LINE(1), 1)}\n${createdOf(PET_LINE(2), 2)}\n`,
      // What it waits for is said then too (it was said only while the input was being read).
      stderr:
        '{"notice":{"message":"waiting for 2 requests in flight (Ctrl-C again to quit at once)"}}\n' +
        '{"error":{"code":"interrupted","message":"interrupted once every input had been sent","status":null}}\n' +
        '{"summary":{"created":2,"failed":0,"uncertain":0,"notSent":0}}\n',
      prompts: [],
    });
  });

  it('says how many were created when a Ctrl-C interrupts an import in a script that had no failure', async () => {
    // Without --json, the summary line carries the count: it was lost when nothing had failed.
    const controller = new AbortController();
    const server = await ctrlCWithBothInFlight(controller);
    const result = await run(['pets', 'add', '--file', '-'], {
      env: envFor(server.url),
      stdin: stdinOf(2),
      signal: controller.signal,
    });
    expect(result.code).toBe(130);
    expect(result.stderr.split('\n').at(-2)).toBe(
      '2 created, 0 failed, 0 uncertain, 0 not sent; interrupted once every input had been sent',
    );
  });

  it('reports a timed-out POST as timeout, "may have been created", and writes it apart from --failed', async () => {
    const failed = join(tempDir(), 'retry.ndjson');
    const server = await faultServer((_req, res, n) => {
      if (n === 2) return; // never answers
      reply(res, 201, createdOf(server.seen[n - 1]?.body ?? '{}', n));
    });
    // Inputs 1 and 3, answered at once, must come back within the timeout too: 0.3 s was too
    // short on a busy machine (input 3 timed out as well, in 1 of 12 runs beside 3 CPU hogs).
    const result = await run(
      ['pets', 'add', '--file', '-', '--concurrency', '1', '--timeout', '1.5', '--failed', failed],
      { env: envFor(server.url), stdin: stdinOf(3) },
    );
    expect(server.seen).toHaveLength(3);
    expect(result.code).toBe(6);
    expect(result.stderr).toBe(
      `error: input 2 (line 2): request to ${server.origin.slice(7)} timed out after 1.5s\nhint: the animal may have been created\n` +
        `2 created, 0 failed, 1 uncertain (input 2), 0 not sent; failed and not sent in ${failed}; uncertain in ${failed}.uncertain: they may have been created, and adding them again may duplicate them\n`,
    );
    // The retry file holds nothing: running it again cannot make input 2 twice.
    expect(readFileSync(failed, 'utf8')).toBe('');
    expect(readFileSync(`${failed}.uncertain`, 'utf8')).toBe(`${PET_LINE(2)}\n`);
  });

  it('counts an input that may have been created among the failed of the progress line', async () => {
    const server = await faultServer(() => {}); // never answers
    const result = await run(['pets', 'add', '--file', '-', '--timeout', '0.3', '--json'], {
      env: { ...envFor(server.url), NO_COLOR: '1' },
      stdin: stdinOf(1),
      tty: { stderr: true },
    });
    expect(result.code).toBe(6);
    // Redrawn under the error line: the input that timed out is counted.
    expect(result.stderr).toContain('\r\u001b[K0 created, 1 failed (0/s)');
  });

  it.each([
    ['not json', 'the server sent a response that is not JSON (HTTP 201)'],
    ['{"id":"abc"', 'the server sent a response that is not JSON (HTTP 201)'],
    ['', 'the server sent an empty response (HTTP 201)'],
  ])(
    'counts a 201 whose body cannot be read (%j) as uncertain, written to --uncertain, never to --failed',
    async (body, message) => {
      const dir = tempDir();
      const failed = join(dir, 'retry.ndjson');
      const uncertain = join(dir, 'maybe.ndjson');
      const server = await faultServer((_req, res, n) =>
        n === 2
          ? reply(res, 201, body)
          : reply(res, 201, createdOf(server.seen[n - 1]?.body ?? '{}', n)),
      );
      const result = await run(
        [
          'pets',
          'add',
          '--file',
          '-',
          '--concurrency',
          '1',
          '--failed',
          failed,
          '--uncertain',
          uncertain,
        ],
        { env: envFor(server.url), stdin: stdinOf(3) },
      );
      expect(result).toEqual({
        code: 1,
        stdout: 'ID\tNAME\tCATEGORY\tSTATUS\n1\tp1\t1\t\n3\tp3\t1\t\n',
        stderr:
          `error: input 2 (line 2): ${message}\nhint: the animal may have been created\n` +
          `2 created, 0 failed, 1 uncertain (input 2), 0 not sent; failed and not sent in ${failed}; uncertain in ${uncertain}: they may have been created, and adding them again may duplicate them\n`,
        prompts: [],
      });
      expect(readFileSync(failed, 'utf8')).toBe('');
      expect(readFileSync(uncertain, 'utf8')).toBe(`${PET_LINE(2)}\n`);
    },
  );

  it('counts a 201 whose body is not an animal ([]) as uncertain too', async () => {
    const failed = join(tempDir(), 'retry.ndjson');
    const server = await faultServer((_req, res) => reply(res, 201, '[]'));
    const result = await run(['pets', 'add', '--file', '-', '--json', '--failed', failed], {
      env: envFor(server.url),
      stdin: stdinOf(1),
    });
    expect(result.code).toBe(1);
    expect(result.stderr).toBe(
      `{"summary":{"created":0,"failed":0,"uncertain":1,"notSent":0,"failedFile":"${failed}","uncertainFile":"${failed}.uncertain"}}\n`,
    );
    expect(JSON.parse(result.stdout)).toMatchObject({ input: 1, line: 1, error: { status: 201 } });
    expect(readFileSync(failed, 'utf8')).toBe('');
    expect(readFileSync(`${failed}.uncertain`, 'utf8')).toBe(`${PET_LINE(1)}\n`);
  });

  it('says what is wrong with an input in plain words, field by field', async () => {
    const cases: [unknown, string][] = [
      [[1], 'expected an object with name and categoryId (got an array)'],
      [null, 'expected an object with name and categoryId (got null)'],
      [7, 'expected an object with name and categoryId (got a number)'],
      [
        { name: ' ', categoryId: 1 },
        'name must be a string with a character other than a space (got " ")',
      ],
      [
        { name: 'a', categoryId: 1.5 },
        'categoryId must be an integer in the int64 range (got 1.5)',
      ],
      [
        { name: 5, categoryId: '1', status: 'Sold' },
        'name must be a string with a character other than a space (got 5); categoryId must be an integer in the int64 range (got "1"); status must be one of available, pending, sold (got "Sold")',
      ],
    ];
    const result = await run(['pets', 'add', '--file', '-', '--dry-run', '--json'], {
      env: baseEnv(),
      stdin: `${JSON.stringify(cases.map(([input]) => input))}\n`,
    });
    expect(result).toEqual({
      code: 3,
      stdout: cases
        .map(
          ([, message], k) =>
            `${JSON.stringify({ input: k + 1, error: { code: 'invalid_input', message, status: null } })}\n`,
        )
        .join(''),
      stderr: '{"summary":{"valid":0,"failed":6}}\n',
      prompts: [],
    });
  });

  it('--dry-run checks every input and sends nothing: exit 3 with the usual report', async () => {
    const server = await faultServer((_req, res) => reply(res, 500, ''));
    const result = await run(['pets', 'add', '--file', '-', '--dry-run'], {
      env: envFor(server.url),
      stdin: `${PET_LINE(1)}\n{"name":"x","categoryId":1,"status":"Sold"}\n`,
    });
    expect(server.seen).toHaveLength(0);
    expect(result).toEqual({
      code: 3,
      stdout: '',
      stderr:
        'error: input 2 (line 2): status must be one of available, pending, sold (got "Sold")\n' +
        'Checked 2 inputs: 1 valid, 1 failed (input 2), nothing was sent\n',
      prompts: [],
    });
    const ok = await run(['pets', 'add', '--file', '-', '--dry-run', '--json'], {
      env: baseEnv(),
      stdin: `${PET_LINE(1)}\n`,
    });
    expect(ok).toEqual({
      code: 0,
      stdout: '{"input":1,"valid":true}\n',
      stderr: '{"summary":{"valid":1,"failed":0}}\n',
      prompts: [],
    });
  });

  it('names a --failed file in its warning safely for a terminal (an escape in its name)', async () => {
    const server = await faultServer((_req, res, n) =>
      reply(res, 201, createdOf(server.seen[n - 1]?.body ?? '{}', n)),
    );
    const folder = tempDir();
    const failed = join(folder, 'f\u001b[2J.ndjson');
    const over = `{"name":"${'x'.repeat(1024 * 1024)}","categoryId":1}`;
    const result = await run(['pets', 'add', '--file', '-', '--failed', failed], {
      env: envFor(server.url),
      stdin: `${PET_LINE(1)}\n${over}\n`,
    });
    expect(result).toEqual({
      code: 3,
      stdout: `ID\tNAME\tCATEGORY\tSTATUS\n1\t${JSON.parse(PET_LINE(1)).name}\t1\t\n`,
      stderr:
        'error: input 2 (line 2): longer than 1 MiB\n' +
        `1 created, 1 failed (input 2), 0 uncertain, 0 not sent; failed and not sent in ${folder}/f\\x1b[2J.ndjson\n` +
        `warning: --failed ${folder}/f\\x1b[2J.ndjson does not hold input 2: a line over 1 MiB is not kept\n`,
      prompts: [],
    });
  });

  it('treats a line over 1 MiB as that input’s failure, without holding it', async () => {
    const server = await faultServer((_req, res, n) =>
      reply(res, 201, createdOf(server.seen[n - 1]?.body ?? '{}', n)),
    );
    // One byte over the bound: the line fails; one of exactly 1 MiB is sent.
    const line = (bytes: number) => {
      const frame = '{"name":"","categoryId":1}';
      return `{"name":"${'x'.repeat(bytes - frame.length)}","categoryId":1}`;
    };
    const over = line(1024 * 1024 + 1);
    const failed = join(tempDir(), 'failed.ndjson');
    const result = await run(
      ['pets', 'add', '--file', '-', '--json', '--concurrency', '1', '--failed', failed],
      { env: envFor(server.url), stdin: `${PET_LINE(1)}\n${over}\n${line(1024 * 1024)}\n` },
    );
    expect(result.code).toBe(3);
    expect(result.stdout.split('\n')[1]).toBe(
      '{"input":2,"line":2,"error":{"code":"invalid_json","message":"longer than 1 MiB","status":null}}',
    );
    expect(server.seen.map((r) => r.body)).toEqual([PET_LINE(1), line(1024 * 1024)]);
    // Not held, so not in --failed either: said, not left for the user to find out.
    expect(readFileSync(failed, 'utf8')).toBe('');
    // The first line as well (read under a JSON document's bound, as it may begin an array).
    const first = await run(['pets', 'add', '--file', '-', '--json'], {
      env: envFor(server.url),
      stdin: `${over}\n${PET_LINE(2)}\n`,
    });
    expect(first.code).toBe(3);
    expect(first.stdout.split('\n')[0]).toBe(
      '{"input":1,"line":1,"error":{"code":"invalid_json","message":"longer than 1 MiB","status":null}}',
    );
    expect(server.seen.slice(2).map((r) => r.body)).toEqual([PET_LINE(2)]);
    expect(result.stderr).toBe(
      `{"summary":{"created":2,"failed":1,"uncertain":0,"notSent":0,"failedFile":"${failed}"}}\n` +
        `{"warning":{"message":"--failed ${failed} does not hold input 2: a line over 1 MiB is not kept"}}\n`,
    );
  });

  it('refuses the bulk-only flags without --file, naming them all', async () => {
    const result = await run(
      ['pets', 'add', '--name', 'a', '--category-id', '1', '--dry-run', '--skip', '2'],
      { env: baseEnv({ STORE_API_KEY: 'k' }) },
    );
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: --skip, --dry-run go with --file\n',
      prompts: [],
    });
  });
});

describe('pets add --file: a minified array on one line, and no end of line at all', () => {
  it('reads a JSON array of more than 1 MiB on a single line', async () => {
    const server = await faultServer((_req, res, n) =>
      reply(res, 201, JSON.stringify({ id: n, ...JSON.parse(server.seen[n - 1]?.body ?? '{}') })),
    );
    const pets = Array.from({ length: 3 }, (_, i) => ({
      name: `${'n'.repeat(400_000)}${i}`,
      categoryId: 1,
    }));
    const result = await run(['pets', 'add', '--file', '-', '--json'], {
      env: envFor(server.url),
      stdin: JSON.stringify(pets),
    });
    expect(result.code).toBe(0);
    expect(server.seen).toHaveLength(3);
  });
});

describe('pets add --file: an NDJSON input named by its line', () => {
  const INPUT = '{"name":"A","categoryId":1}\n\n{"name":"","categoryId":1}\n';

  it('says input 2 (line 3) when a blank line comes before it, in text and in JSON', async () => {
    const env = envFor('http://127.0.0.1:9/v1');
    expect(await run(['pets', 'add', '--file', '-', '--dry-run'], { env, stdin: INPUT })).toEqual({
      code: 3,
      stdout: '',
      stderr:
        'error: input 2 (line 3): name must be a string with a character other than a space (got "")\n' +
        'Checked 2 inputs: 1 valid, 1 failed (input 2), nothing was sent\n',
      prompts: [],
    });
    const json = await run(['pets', 'add', '--file', '-', '--dry-run', '--json'], {
      env,
      stdin: INPUT,
    });
    expect(json).toEqual({
      code: 3,
      stdout:
        '{"input":1,"valid":true}\n' +
        '{"input":2,"line":3,"error":{"code":"invalid_input","message":"name must be a string with a character other than a space (got \\"\\")","status":null}}\n',
      stderr: '{"summary":{"valid":1,"failed":1}}\n',
      prompts: [],
    });
  });
});

describe('pets add --file: output files that are one file under two names', () => {
  it('refuses --failed and --uncertain naming a file and a hard link to it: exit 2, nothing sent', async () => {
    const server = await faultServer((_req, res) => reply(res, 201, '{}'));
    const dir = tempDir();
    const failed = join(dir, 'failed.ndjson');
    const uncertain = join(dir, 'also-failed.ndjson');
    writeFileSync(failed, '');
    linkSync(failed, uncertain);
    const result = await run(
      ['pets', 'add', '--file', '-', '--failed', failed, '--uncertain', uncertain],
      { env: envFor(server.url), stdin: '{"name":"A","categoryId":1}\n' },
    );
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: --failed and --uncertain name the same file (${failed}): give each its own\n`,
      prompts: [],
    });
    expect(server.seen).toHaveLength(0);
  });
});
