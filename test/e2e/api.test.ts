// `store api` as a process against the sandbox as a process: every method, an empty 204,
// int64 fields, exit codes, and a foreign host refused with nothing sent.
import { describe, expect, it } from 'vitest';
import { faultServer, reply } from '../helpers/fault-server.js';
import { startSandbox, store } from '../helpers/process.js';

describe('store api against the sandbox', () => {
  it('creates, reads, replaces, patches, heads and deletes an animal, int64 exact', async () => {
    const sandbox = await startSandbox();
    const env = sandbox.env();
    const created = await store(
      ['api', '-X', 'POST', '/pets', '-f', 'name=Rex', '-F', 'categoryId=9007199254740993'],
      { env },
    );
    expect(created).toEqual({
      code: 0,
      signal: null,
      stdout: '{"id":1,"name":"Rex","categoryId":9007199254740993}\n',
      stderr: '',
    });
    const put = await store(
      [
        'api',
        '-X',
        'PUT',
        '/pets/1',
        '-f',
        'name=Max',
        '-F',
        'categoryId=2',
        '-f',
        'status=pending',
      ],
      { env },
    );
    expect(put.stdout).toBe('{"id":1,"name":"Max","categoryId":2,"status":"pending"}\n');
    const patch = await store(['api', '-X', 'PATCH', 'pets/1', '-f', 'status=sold'], { env });
    expect(patch.stdout).toBe('{"id":1,"name":"Max","categoryId":2,"status":"sold"}\n');
    const head = await store(['api', '-X', 'HEAD', '/pets', '-i'], { env });
    expect(head.code).toBe(0);
    expect(head.stdout).toMatch(/^HTTP\/1\.1 200 OK\n(.+\n)+\n$/);
    const gone = await store(['api', '-X', 'DELETE', '/pets/1'], { env });
    expect(gone).toEqual({ code: 0, signal: null, stdout: '', stderr: '' });
    const missing = await store(['api', '/pets/1'], { env });
    expect(missing).toEqual({
      code: 5,
      signal: null,
      stdout: '{"code":"pet_not_found","message":"no pet with id 1","status":404}\n',
      // The deprecated GET says so; the DELETE above, on the same path, did not.
      stderr:
        'warning: the API marks GET /pets/1 as deprecated; it will be removed on 2030-12-05\n' +
        'error: no pet with id 1 (pet_not_found, HTTP 404)\n',
    });
    const again = await store(['api', '-X', 'DELETE', '/pets/1'], { env });
    expect(again.code).toBe(5);
    await sandbox.stop();
  });

  it('maps a 400 to exit 3 and a missing key to exit 4, printing the Error body', async () => {
    const sandbox = await startSandbox();
    const bad = await store(['api', '-X', 'POST', '/pets', '-f', 'name=Rex'], {
      env: sandbox.env(),
    });
    expect(bad.code).toBe(3);
    expect(JSON.parse(bad.stdout)).toMatchObject({ status: 400 });
    const wrongKey = await store(['api', '/pets'], {
      env: sandbox.env({ STORE_API_KEY: 'not-the-key' }),
    });
    expect(wrongKey.code).toBe(4);
    expect(JSON.parse(wrongKey.stdout)).toMatchObject({ status: 401 });
    await sandbox.stop();
  });

  it('refuses a URL on another origin before sending anything: exit 2', async () => {
    const sandbox = await startSandbox();
    // Another origin that records what reaches it: the same host, another port.
    const other = await faultServer((_req, res) => reply(res, 200, '[]'));
    const result = await store(['api', `${other.url}/pets`], { env: sandbox.env() });
    expect(result).toEqual({
      code: 2,
      signal: null,
      stdout: '',
      stderr: `error: refusing to send the API key to ${other.origin}: a full URL must be on the profile's host (${new URL(sandbox.url).origin}); nothing was sent\n`,
    });
    expect(other.seen).toEqual([]);
    const stopped = await sandbox.stop();
    // The sandbox logs one line per request: it saw none.
    expect(stopped.stderr).not.toMatch(/GET \/v1\/pets/);
  });
});
