// Connections kept open between requests, against a server that closes them on its own terms:
// after a few answers without saying so (no Connection: close), or once idle for as long as its
// Keep-Alive header says. No request may be written into such a close: a POST lost with the
// connection could not be known to be created or not.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { baseEnv, run, tempDir } from '../helpers/cli.js';
import { faultServer, rawServer } from '../helpers/fault-server.js';

const KEY = 'keep-alive-key-1234';
const envFor = (url: string) => baseEnv({ STORE_API_KEY: KEY, STORE_BASE_URL: url });

describe('a bulk add over connections the server closes after five answers', () => {
  it('creates every animal once, none uncertain', async () => {
    const answered = new Map<unknown, number>();
    const server = await faultServer((req, res) => {
      const n = (answered.get(req.socket) ?? 0) + 1;
      answered.set(req.socket, n);
      const { name } = JSON.parse(server.seen.at(-1)?.body ?? '{}') as { name: string };
      res.writeHead(201, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ id: server.seen.length, name, categoryId: 1 }), () => {
        if (n === 5) req.socket.destroy();
      });
    });
    const file = join(tempDir(), 'animals.ndjson');
    const names = Array.from({ length: 200 }, (_, i) => `a${i}`);
    writeFileSync(file, names.map((name) => `{"name":"${name}","categoryId":1}\n`).join(''));
    const result = await run(['pets', 'add', '--file', file, '--json'], {
      env: envFor(server.url),
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toBe(
      '{"summary":{"created":200,"failed":0,"uncertain":0,"notSent":0}}\n',
    );
    const sent = server.seen.map((r) => JSON.parse(r.body).name as string);
    expect(sent.sort()).toEqual([...names].sort());
  });
});

describe('a connection left idle', () => {
  it('is closed a second before the Keep-Alive timeout the server gave: the retry opens another', async () => {
    // The server never closes it: a retry on the same connection would show as one.
    const server = await rawServer(() =>
      server.requests.length === 1
        ? 'HTTP/1.1 503 Service Unavailable\r\nretry-after: 2\r\nkeep-alive: timeout=2\r\ncontent-length: 0\r\n\r\n'
        : 'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n[]',
    );
    const result = await run(['pets', 'list', '--json'], {
      env: envFor(server.url),
      // The wait for Retry-After is real here: the connection's idle time is what is tested.
      timing: { sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)) },
    });
    expect(result).toEqual({ code: 0, stdout: '[]\n', stderr: '', prompts: [] });
    expect(server.requests).toEqual(['GET /v1/pets HTTP/1.1', 'GET /v1/pets HTTP/1.1']);
    expect(server.connections()).toBe(2);
  });
});
