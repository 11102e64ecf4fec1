// pets add --file at volume: a real loopback server that answers out of order.
import { describe, expect, it } from 'vitest';
import { baseEnv, run } from '../helpers/cli.js';
import { faultServer, reply } from '../helpers/fault-server.js';

const envFor = (url: string) => baseEnv({ STORE_API_KEY: 'bulk-key', STORE_BASE_URL: url });

/** A server that answers each POST after a random delay, counting requests in flight. */
async function slowServer(delayMs: () => number) {
  let inFlight = 0;
  let maxInFlight = 0;
  const server = await faultServer((_req, res, n) => {
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    const body = JSON.parse(server.seen[n - 1]?.body ?? '{}');
    setTimeout(() => {
      inFlight -= 1;
      if (body.name.startsWith('bad'))
        reply(res, 400, `{"code":"rejected","message":"no ${body.name}","status":400}`);
      else reply(res, 201, JSON.stringify({ id: Number(body.name.slice(1)), ...body }));
    }, delayMs());
  });
  return { server, maxInFlight: () => maxInFlight };
}

const lines = (count: number, bad: (i: number) => boolean = () => false) =>
  Array.from({ length: count }, (_, k) => {
    const i = k + 1;
    return JSON.stringify({ name: bad(i) ? `bad${i}` : `p${i}`, categoryId: 1 });
  });

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
        ? `{"input":${k + 1},"error":{"code":"rejected","message":"no ${body.name}","status":400}}`
        : JSON.stringify({ id: k + 1, ...body });
    });
    expect(result).toEqual({
      code: 3,
      stdout: `${expected.join('\n')}\n`,
      stderr: '',
      prompts: [],
    });
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
      stderr: 'error: input 3: no bad3 (rejected, HTTP 400)\n1 of 4 animals were not created\n',
      prompts: [],
    });
  });

  it('on Ctrl-C stops sending, lets the requests in flight finish, reports them, and exits 130', async () => {
    const { server } = await slowServer(() => 400);
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 150);
    const result = await run(['pets', 'add', '--file', '-', '--json', '--concurrency', '4'], {
      env: envFor(server.url),
      stdin: `${lines(100).join('\n')}\n`,
      signal: controller.signal,
    });
    expect(server.seen).toHaveLength(4);
    expect(result).toEqual({
      code: 130,
      stdout: `${[1, 2, 3, 4].map((i) => `{"id":${i},"name":"p${i}","categoryId":1}`).join('\n')}\n`,
      stderr:
        'waiting for 4 requests in flight (Ctrl-C again to quit at once)\n' +
        'interrupted: 4 created, 0 failed; inputs from 5 on were not sent\n',
      prompts: [],
    });
  });

  it('shows progress and a summary on a terminal’s stderr', async () => {
    const { server } = await slowServer(() => 1);
    const result = await run(['pets', 'add', '--file', '-', '--json'], {
      env: envFor(server.url),
      stdin: `${lines(3).join('\n')}\n`,
      tty: { stderr: true },
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(
      /^\r\u001b\[K1 created, 0 failed \(\d+\/s\)\r\u001b\[KCreated 3 animals \(\d+\/s\)\n$/,
    );
  });
});
