// `store mcp` as an agent meets it: bin/store.js started as a process, spoken to by the SDK's
// own client over stdio, against the sandbox on loopback.
import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { afterThisTest } from '../helpers/cleanup.js';
import { faultServer } from '../helpers/fault-server.js';
import { serve } from '../helpers/mcp.js';
import { BIN, collect, processEnv, startSandbox, store } from '../helpers/process.js';

const READ_TOOLS = ['api_get', 'auth_status', 'orders_list', 'pets_get', 'pets_list'];
const WRITE_TOOLS = ['messages_send', 'pets_add'];
const USAGE_MEANING =
  'usage: unknown command or flag, missing or invalid argument or flag value, refused configuration — nothing was sent';

/** The sandbox's request lines since the test started listening (`GET /v1/pets 200`). */
function requestLog(child: { stderr: NodeJS.ReadableStream | null }): () => string[] {
  let log = '';
  child.stderr?.on('data', (chunk) => {
    log += chunk;
  });
  return () =>
    log
      .split('\n')
      .filter((line) => /^[A-Z]+ \//.test(line))
      .map((line) => line.replace(/ \d+ms$/, ''));
}

/** The text of a result's content items. */
const texts = (result: object) =>
  (result as { content: { text: string }[] }).content.map((item) => item.text);

describe('store mcp', () => {
  it('offers exactly the read-only tools, and the writes too with --allow-writes', async () => {
    const sandbox = await startSandbox();
    const readOnly = await serve([], sandbox.env());
    const listed = (await readOnly.client.listTools()).tools;
    expect(listed.map((tool) => tool.name).sort()).toEqual(READ_TOOLS);
    const list = listed.find((tool) => tool.name === 'pets_list');
    expect(list).toMatchObject({
      description: 'List animals. Runs `store pets list --json`.',
      inputSchema: {
        type: 'object',
        properties: {
          status: { type: 'string', enum: ['available', 'pending', 'sold'] },
          limit: { type: ['integer', 'string'] },
        },
        additionalProperties: false,
      },
      annotations: { readOnlyHint: true },
    });
    expect(readOnly.stderr()).toContain(
      `store mcp: serving profile sandbox (${sandbox.url}) on stdin and stdout; read-only (--allow-writes offers pets_add, messages_send)`,
    );

    const writing = await serve(['--allow-writes'], sandbox.env());
    const all = (await writing.client.listTools()).tools;
    expect(all.map((tool) => tool.name).sort()).toEqual([...READ_TOOLS, ...WRITE_TOOLS].sort());
    expect(all.find((tool) => tool.name === 'pets_add')).toMatchObject({
      inputSchema: {
        properties: { name: { type: 'string' }, categoryId: { type: 'string' } },
      },
      annotations: { readOnlyHint: false },
    });
    // A file of this machine is not the agent's to name.
    const add = all.find((tool) => tool.name === 'pets_add');
    expect(Object.keys(add?.inputSchema.properties ?? {}).sort()).toEqual([
      'categoryId',
      'name',
      'status',
    ]);
  });

  it('lists animals by status and limit, as `store pets list --json` prints them', async () => {
    const sandbox = await startSandbox(['--seed', '10']);
    const { client } = await serve([], sandbox.env());
    const result = await client.callTool({
      name: 'pets_list',
      arguments: { status: 'available', limit: 2 },
    });
    const cli = await store(['pets', 'list', '--status', 'available', '--limit', '2', '--json'], {
      env: sandbox.env(),
    });
    expect(cli.code).toBe(0);
    expect(result.isError).toBeUndefined();
    expect(texts(result)).toEqual([cli.stdout.trimEnd()]);
    const data = (result.structuredContent as { data: { status: string }[] }).data;
    expect(result.structuredContent).toEqual({ profile: 'sandbox', data: JSON.parse(cli.stdout) });
    expect(data).toHaveLength(2);
    expect(data.map((pet) => pet.status)).toEqual(['available', 'available']);
  });

  it('answers a missing animal with a tool error naming 404, and goes on serving', async () => {
    const sandbox = await startSandbox();
    const { client } = await serve([], sandbox.env());
    // Listed first: the SDK's client checks each result against its tool's outputSchema.
    await client.listTools();
    const result = await client.callTool({ name: 'pets_get', arguments: { petId: '424242' } });
    expect(result.isError).toBe(true);
    expect(result.structuredContent).toEqual({
      profile: 'sandbox',
      error: {
        code: 'pet_not_found',
        message: 'no pet with id 424242',
        status: 404,
        exitCode: 5,
        meaning: 'not found (HTTP 404)',
      },
    });
    expect(texts(result)).toEqual([
      'error: no pet with id 424242 (pet_not_found, HTTP 404)\nexit code 5: not found (HTTP 404)',
    ]);
    const next = await client.callTool({ name: 'orders_list', arguments: {} });
    expect(next).toMatchObject({ structuredContent: { profile: 'sandbox', data: [] } });
  });

  it('answers a tool it does not have with the protocol’s error, and goes on serving', async () => {
    const sandbox = await startSandbox();
    const { client, stderr } = await serve([], sandbox.env());
    await expect(client.callTool({ name: 'pets_lsit', arguments: {} })).rejects.toMatchObject({
      code: -32602,
      message: 'MCP error -32602: no tool "pets_lsit" (did you mean "pets_list"?)',
    });
    expect(stderr()).toContain('pets_lsit: no such tool\n');
    const next = await client.callTool({ name: 'orders_list', arguments: {} });
    expect(next).toMatchObject({ structuredContent: { profile: 'sandbox', data: [] } });
  });

  it('refuses a bad limit, an unknown argument and a method override as tool errors, with nothing sent', async () => {
    const sandbox = await startSandbox();
    const requests = requestLog(sandbox.child);
    const { client } = await serve([], sandbox.env());
    for (const limit of [0, '101', 'ten']) {
      const result = await client.callTool({ name: 'pets_list', arguments: { limit } });
      expect(result).toMatchObject({
        isError: true,
        structuredContent: {
          error: {
            code: 'usage_error',
            message: `--limit must be an integer from 1 to 100 (got ${JSON.stringify(String(limit))})`,
            status: null,
            exitCode: 2,
            meaning: USAGE_MEANING,
          },
        },
      });
    }
    const unknown = await client.callTool({ name: 'pets_list', arguments: { limt: 5 } });
    expect(unknown).toMatchObject({
      isError: true,
      structuredContent: {
        error: {
          code: 'usage_error',
          message:
            'pets_list takes no argument "limt" (did you mean "limit"?); it takes status, limit',
        },
      },
    });
    // Read-only means a GET that no server reads as another method.
    const override = await client.callTool({
      name: 'api_get',
      arguments: { path: '/pets/1', header: ['X-HTTP-Method-Override: DELETE'] },
    });
    expect(override).toMatchObject({
      isError: true,
      structuredContent: {
        error: {
          code: 'usage_error',
          message: '--header cannot set X-HTTP-Method-Override: a server may read it as the method',
        },
      },
    });
    // The next call's request is the first the sandbox saw.
    await client.callTool({ name: 'orders_list', arguments: {} });
    await sandbox.logged('GET /v1/store/orders');
    expect(requests()).toEqual(['GET /v1/store/orders 200']);
  });

  it('adds an animal only with --allow-writes, and says which profile it wrote to', async () => {
    const sandbox = await startSandbox();
    const requests = requestLog(sandbox.child);
    // staging, made to point at the sandbox: `store mcp -p staging` serves staging.
    const env = processEnv({ STORE_API_KEY: 'sandbox' });
    const set = ['profile', 'set', 'staging', '--base-url', sandbox.url];
    expect(await store(set, { env })).toMatchObject({ code: 0 });
    const pet = { name: 'Rex', categoryId: '2', status: 'available' };

    const readOnly = await serve(['-p', 'staging'], env);
    const refused = await readOnly.client.callTool({ name: 'pets_add', arguments: pet });
    expect(refused).toMatchObject({
      isError: true,
      structuredContent: {
        error: {
          code: 'writes_not_allowed',
          message:
            'pets_add changes data: it is offered only by `store mcp --allow-writes`; nothing was sent',
          exitCode: 2,
        },
      },
    });
    // A tool the server does not have: the protocol's error (test below).
    await expect(
      readOnly.client.callTool({ name: 'pets_ad', arguments: pet }),
    ).rejects.toMatchObject({ code: -32602 });
    // The server's log line for each: the result's code.
    await expect
      .poll(() => readOnly.stderr())
      .toContain('pets_add: failed: writes_not_allowed\npets_ad: no such tool\n');

    const writing = await serve(['-p', 'staging', '--allow-writes'], env);
    // What `pets add` asks for on a terminal, a tool call must give.
    const incomplete = await writing.client.callTool({
      name: 'pets_add',
      arguments: { name: 'Rex' },
    });
    expect(incomplete).toMatchObject({
      isError: true,
      structuredContent: { error: { code: 'usage_error', message: 'pets_add needs categoryId' } },
    });
    const added = await writing.client.callTool({ name: 'pets_add', arguments: pet });
    expect(added.isError).toBeUndefined();
    expect(added.structuredContent).toEqual({
      profile: 'staging',
      data: { id: 1, name: 'Rex', categoryId: 2, status: 'available' },
    });
    expect(texts(added)).toEqual([
      '{"id":1,"name":"Rex","categoryId":2,"status":"available"}',
      'written to profile staging',
    ]);
    const sent = await writing.client.callTool({
      name: 'messages_send',
      arguments: { text: 'Restock done' },
    });
    expect(sent).toMatchObject({
      structuredContent: { profile: 'staging', data: { message: 'Restock done' } },
    });
    expect(texts(sent)[1]).toBe('written to profile staging');
    // No stdin to read a message from: the text is required, as the tool's schema says.
    const empty = await writing.client.callTool({ name: 'messages_send', arguments: {} });
    expect(empty).toMatchObject({
      isError: true,
      structuredContent: { error: { code: 'usage_error', message: 'messages_send needs text' } },
    });
    // The sandbox logs a request as it answers it: its line can come after the answer.
    await sandbox.logged('POST /v1/messages');
    expect(requests()).toEqual(['POST /v1/pets 201', 'POST /v1/messages 201']);
  });

  it('refuses an unknown profile before serving: one error line, exit 2', async () => {
    const result = await store(['mcp', '-p', 'nosuch']);
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toMatch(/^error: .*nosuch/);
  });

  it.each([
    [
      'a query with a token in it',
      'http://127.0.0.1:9/v1?api_key=k-secret-98765',
      'error: STORE_BASE_URL must not have a query (?) or a fragment (#): "http://127.0.0.1:9/v1?…"\n',
    ],
    [
      'a password in it',
      'http://u:secret-pw@127.0.0.1:9/v1',
      'error: STORE_BASE_URL must not contain a user name or password: "127.0.0.1:9"\n',
    ],
  ])(
    'refuses a base URL every call would refuse (%s) before serving: exit 2, nothing logged',
    async (_what, url, stderr) => {
      const result = await store(['-p', 'sandbox', 'mcp'], {
        env: processEnv({ STORE_BASE_URL: url }),
        stdin: '',
      });
      expect(result).toEqual({ code: 2, signal: null, stdout: '', stderr });
    },
  );

  it('keeps int64 ids exact end to end: strings when structured, digits in the text', async () => {
    const sandbox = await startSandbox();
    const { client } = await serve(['--allow-writes'], sandbox.env());
    // Listed first: the SDK's client checks each result against its tool's outputSchema.
    await client.listTools();
    const big = '9223372036854775807';
    const added = await client.callTool({
      name: 'pets_add',
      arguments: { name: 'Max', categoryId: big, status: 'pending' },
    });
    expect(added.structuredContent).toEqual({
      profile: 'sandbox',
      data: { id: 1, name: 'Max', categoryId: big, status: 'pending' },
    });
    expect(texts(added)[0]).toBe(`{"id":1,"name":"Max","categoryId":${big},"status":"pending"}`);
    // Read back as the service keeps it.
    const listed = await client.callTool({ name: 'pets_list', arguments: { status: 'pending' } });
    expect(listed.structuredContent).toEqual({
      profile: 'sandbox',
      data: [{ id: 1, name: 'Max', categoryId: big, status: 'pending' }],
    });
    expect(texts(listed)[0]).toBe(`[{"id":1,"name":"Max","categoryId":${big},"status":"pending"}]`);
    // An id given as a string reaches the service digit for digit.
    const missing = await client.callTool({ name: 'pets_get', arguments: { petId: big } });
    expect(missing).toMatchObject({
      isError: true,
      structuredContent: { error: { message: `no pet with id ${big}`, status: 404 } },
    });
    // The deprecation warning, as the command gives it, for the agent too.
    const got = await client.callTool({ name: 'pets_get', arguments: { petId: 1 } });
    expect(texts(got)[1]).toMatch(/^warning: 'store pets get' is deprecated/);

    // A number past 2^53 has lost its digits before the server reads it: refused, not rounded.
    const rounded = await client.callTool({
      name: 'pets_get',
      // 2 ** 53 + 1 is 2 ** 53 as a double: what a JSON number of its digits becomes.
      arguments: { petId: 2 ** 53 + 1 },
    });
    expect(rounded).toMatchObject({
      isError: true,
      structuredContent: {
        error: {
          code: 'usage_error',
          message:
            'petId 9007199254740992 is beyond 2^53, where a JSON number can lose digits; give it as a string',
        },
      },
    });
  });

  it('never shows the key: not in a result, an error or the log', async () => {
    const key = 'k-9f3c7a21d5e8b604';
    const sandbox = await startSandbox(['--api-key', key]);
    // --debug traces each exchange (to the server's stderr): the key masked there too.
    const served = await serve(['--debug'], sandbox.env({ STORE_API_KEY: key }));
    const status = await served.client.callTool({ name: 'auth_status', arguments: {} });
    expect(status.structuredContent).toMatchObject({
      data: { profile: 'sandbox', keySource: 'env', key: '****b604', valid: true },
    });
    const wrong = await serve([], sandbox.env({ STORE_API_KEY: `${key}-old` }));
    const rejected = await wrong.client.callTool({ name: 'pets_list', arguments: {} });
    expect(rejected).toMatchObject({
      isError: true,
      structuredContent: { error: { status: 401, exitCode: 4 } },
    });
    const seen = JSON.stringify([status, rejected]) + served.stderr() + wrong.stderr();
    expect(seen).not.toContain(key);
    expect(served.stderr()).toMatch(/^auth_status: > GET /m);
    expect(served.stderr()).toMatch(/^auth_status: > authorization: Bearer \*{4}b604$/im);
  });

  it('ends with exit 0 on Ctrl-C at once, or after the end of stdin once calls read are answered', async () => {
    // A service that takes requests and never answers.
    let arrived = () => {};
    const server = await faultServer(() => arrived());
    const messages = [
      {
        jsonrpc: '2.0',
        id: 1,
        method: 'initialize',
        params: {
          protocolVersion: '2025-06-18',
          capabilities: {},
          clientInfo: { name: 'store-test', version: '1.0.0' },
        },
      },
      { jsonrpc: '2.0', method: 'notifications/initialized' },
      { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'pets_list', arguments: {} } },
    ];
    for (const end of ['stdin', 'SIGINT'] as const) {
      // A time limit of 1 s: what a call read before the end of stdin is given to finish.
      const child = spawn(process.execPath, [BIN, 'mcp', '--timeout', '1'], {
        env: processEnv({ STORE_BASE_URL: server.url, STORE_API_KEY: 'k-1234' }),
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      afterThisTest(() => child.kill('SIGKILL'));
      const result = collect(child);
      const sent = new Promise<void>((resolve) => {
        arrived = resolve;
      });
      child.stdin.write(messages.map((message) => `${JSON.stringify(message)}\n`).join(''));
      await sent;
      if (end === 'stdin') child.stdin.end();
      else child.kill('SIGINT');
      const { code, signal, stdout, stderr } = await result;
      expect({ code, signal }).toEqual({ code: 0, signal: null });
      const answers = stdout.split('\n').map((line) => line && JSON.parse(line));
      if (end === 'SIGINT') {
        // stdout is the protocol only: the answer to initialize; the call's never came.
        expect(answers.map((answer) => answer?.id)).toEqual([1, undefined]);
        expect(stderr).toContain('pets_list: failed: interrupted\n');
        continue;
      }
      // The call read before the end of stdin ends as it would have: at its time limit.
      expect(answers.map((answer) => answer?.id)).toEqual([1, 2, undefined]);
      expect(answers[1].result).toMatchObject({
        isError: true,
        structuredContent: { error: { code: 'timeout', exitCode: 6 } },
      });
      expect(stderr).toContain('pets_list: failed: timeout\n');
    }
  });

  it('ends with exit 0 when the client closes stdin, or on Ctrl-C', async () => {
    const sandbox = await startSandbox();
    for (const end of ['stdin', 'SIGINT'] as const) {
      const child = spawn(process.execPath, [BIN, 'mcp'], {
        env: sandbox.env(),
        stdio: ['pipe', 'pipe', 'pipe'],
      });
      afterThisTest(() => child.kill('SIGKILL'));
      const result = collect(child);
      // Serving once it says so; then the client goes.
      await new Promise<void>((resolve) => {
        child.stderr.on('data', (chunk: Buffer) => {
          if (chunk.toString().includes('store mcp: serving')) resolve();
        });
      });
      if (end === 'stdin') child.stdin.end();
      else child.kill('SIGINT');
      expect(await result).toMatchObject({ code: 0, signal: null, stdout: '' });
    }
  });
});
