// Server text never reaches the terminal raw (error lines, headers chosen by the server,
// --debug traces, --json); and answers or inputs at the edges of what the client expects.
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stringifyJson } from '../../src/json.js';
import { startSandbox as startServer } from '../../src/sandbox/server.js';
import { baseEnv, run, tempDir } from '../helpers/cli.js';
import { faultServer, reply } from '../helpers/fault-server.js';

const envFor = (url: string, extra: Record<string, string> = {}) =>
  baseEnv({ STORE_API_KEY: 'review-key', STORE_BASE_URL: url, ...extra });

describe('server text never reaches the terminal raw', () => {
  const evil =
    '{"code":"bad\\u001b[31m","message":"nope\\u001b]0;pwned\\u0007\\u009b2J\\u202e","status":400}';

  it('in the error line', async () => {
    const server = await faultServer((_req, res) => reply(res, 400, evil));
    const result = await run(['pets', 'add', '--name', 'a', '--category-id', '1'], {
      env: envFor(server.url),
    });
    expect(result).toEqual({
      code: 3,
      stdout: '',
      stderr: 'error: nope\\x1b]0;pwned\\x07\\x9b2J\\u202e (bad\\x1b[31m, HTTP 400)\n',
      prompts: [],
    });
  });

  it('in the JSON error line, escaped and exact', async () => {
    const server = await faultServer((_req, res) => reply(res, 400, evil));
    const result = await run(['pets', 'list', '--json'], { env: envFor(server.url) });
    expect(result.stderr).toBe(
      '{"error":{"code":"bad\\u001b[31m","message":"nope\\u001b]0;pwned\\u0007\\u009b2J\\u202e","status":400}}\n',
    );
    expect(JSON.parse(result.stderr).error.message).toBe('nope\u001b]0;pwned\u0007\u009b2J\u202e');
  });

  it('in --debug traces', async () => {
    const server = await faultServer((_req, res) => reply(res, 502, 'oops \u001b[2J'));
    const result = await run(['pets', 'list', '--debug', '--timeout', '5'], {
      env: envFor(server.url),
    });
    expect(result.stderr).toContain('< oops \\x1b[2J\n');
    expect(result.stderr).not.toContain('\u001b');
  });

  it('in column headers chosen by the server (orders list)', async () => {
    const server = await faultServer((_req, res) =>
      reply(res, 200, '[{"na\\u001b[31mme":1,"\\u202eid":2}]'),
    );
    const tsv = await run(['orders', 'list'], { env: envFor(server.url) });
    expect(tsv.stdout).toBe('na\\x1b[31mme\t\\u202eid\n1\t2\n');
    const table = await run(['orders', 'list', '--no-color'], {
      env: envFor(server.url),
      tty: true,
    });
    expect(table.stdout).not.toMatch(/[\u001b\u202e]/);
  });

  it('in --json: C1 controls and bidi overrides are escaped too, and parse back the same', () => {
    const value = { name: 'a\u009b2J\u202eb\u2028c\u001b' };
    const json = stringifyJson(value);
    expect(json).toBe('{"name":"a\\u009b2J\\u202eb\\u2028c\\u001b"}');
    expect(JSON.parse(json)).toEqual(value);
  });
});

describe('answers and inputs at the edges of what the client expects', () => {
  it('sends messages to STORE_BASE_URL when only it is set, not to the profile’s host', async () => {
    const server = await faultServer((_req, res) =>
      reply(
        res,
        201,
        '{"id":"m","message":"hi","status":"queued","createdAt":"2026-01-01T00:00:00Z"}',
      ),
    );
    const result = await run(['messages', 'send', 'hi', '--json'], { env: envFor(server.url) });
    expect(result.code).toBe(0);
    expect(server.seen.map((r) => `${r.method} ${r.url}`)).toEqual(['POST /v1/messages']);
  });

  it('keeps a pet whose status the client does not know yet', async () => {
    const server = await faultServer((_req, res) =>
      reply(res, 200, '[{"id":1,"name":"Rex","categoryId":1,"status":"adopted"}]'),
    );
    const result = await run(['pets', 'list'], { env: envFor(server.url) });
    expect(result).toEqual({
      code: 0,
      stdout: 'ID\tNAME\tCATEGORY\tSTATUS\n1\tRex\t1\tadopted\n',
      stderr: '',
      prompts: [],
    });
  });

  it('refuses --file naming a folder with exit 2', async () => {
    const dir = tempDir();
    const result = await run(['pets', 'add', '--file', dir], {
      env: envFor('http://127.0.0.1:9/v1'),
    });
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: cannot read --file ${dir}: it is a directory\n`,
      prompts: [],
    });
  });

  it('reads a --file that starts with a byte-order mark', async () => {
    const server = await faultServer((_req, res, n) =>
      reply(res, 201, `{"id":${n},"name":"bom","categoryId":1}`),
    );
    const file = join(tempDir(), 'bom.ndjson');
    writeFileSync(file, '\uFEFF{"name":"bom","categoryId":1}\n');
    const result = await run(['pets', 'add', '--file', file, '--json'], {
      env: envFor(server.url),
    });
    expect(result).toEqual({
      code: 0,
      stdout: '{"id":1,"name":"bom","categoryId":1}\n',
      stderr: '{"summary":{"created":1,"failed":0,"uncertain":0,"notSent":0}}\n',
      prompts: [],
    });
  });

  it('prints a loopback URL when the sandbox listens on every interface', async () => {
    const sandbox = await startServer({ port: 0, host: '0.0.0.0', apiKey: 'k' });
    try {
      expect(sandbox.url).toBe(`http://127.0.0.1:${sandbox.port}/v1`);
    } finally {
      await sandbox.close();
    }
  });
});
