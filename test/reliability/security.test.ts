// Where the key may go and how the config is kept, as a user's shell meets it: real processes.
import { spawn } from 'node:child_process';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer as createHttpServer } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { selfSignedCertificate } from '../helpers/certificate.js';
import { configSetup } from '../helpers/cli.js';
import { faultServer, listen, reply } from '../helpers/fault-server.js';
import { BIN, collect, processEnv, store } from '../helpers/process.js';

const KEY = 'proxy-key-2468';
const PETS = '[{"id":1,"name":"Rex","categoryId":1}]';

describe('the config file', () => {
  it('is created 0600 in a 0700 folder even under umask 000', async () => {
    const { dir, file } = configSetup({}, true);
    const child = spawn(
      'sh',
      [
        '-c',
        `umask 000 && exec "${process.execPath}" "${BIN}" profile set eu --base-url https://eu.example.org/v1`,
      ],
      { env: processEnv({ STORE_CONFIG_DIR: dir }) },
    );
    const result = await collect(child);
    expect(result).toMatchObject({ code: 0, stdout: '', stderr: 'Created profile eu\n' });
    expect(statSync(dir).mode & 0o777).toBe(0o700);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('is reported when other users can read it, and tightened on the next write', async () => {
    const { env, file } = configSetup();
    writeFileSync(
      file,
      '{"profiles":{"eu":{"baseUrl":"https://eu.example.org/v1","apiKey":"secret-key-1111"}}}',
    );
    chmodSync(file, 0o644);
    const warning = `warning: config file ${file} can be read by other users (mode 0644); run: chmod 600 ${file}\n`;
    const listed = await store(['profile', 'list', '--json'], { env: env as NodeJS.ProcessEnv });
    expect(listed.code).toBe(0);
    expect(listed.stderr).toBe(warning);
    expect(listed.stdout).not.toContain('secret-key-1111');
    const set = await store(['profile', 'set', 'eu', '--base-url', 'https://eu2.example.org/v1'], {
      env: env as NodeJS.ProcessEnv,
    });
    expect(set.stderr).toBe(`${warning}Updated profile eu\n`);
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('is never left broken by ten `store profile set` at once', async () => {
    const { env, file } = configSetup();
    const results = await Promise.all(
      Array.from({ length: 10 }, (_, i) =>
        store(['profile', 'set', `p${i}`, '--base-url', `https://p${i}.example.org/v1`], {
          env: env as NodeJS.ProcessEnv,
        }),
      ),
    );
    expect(results.map((r) => r.code)).toEqual(Array(10).fill(0));
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    // Last writer wins: at least one profile, each of them whole.
    const names = Object.keys(saved.profiles);
    expect(names.length).toBeGreaterThan(0);
    for (const name of names) {
      expect(saved.profiles[name]).toEqual({ baseUrl: `https://${name}.example.org/v1` });
    }
  });
});

describe('HTTPS_PROXY, NO_PROXY and loopback', () => {
  // A throwaway certificate for a made-up host, trusted only by the child process.
  const certificate = selfSignedCertificate('/CN=api.proxy.test', 'DNS:api.proxy.test');

  /** The API at https://api.proxy.test, and a CONNECT proxy that leads there. */
  async function apiBehindProxy() {
    const apiSeen: string[] = [];
    const apiPort = await listen(
      createHttpsServer({ key: certificate.key, cert: certificate.cert }, (req, res) => {
        apiSeen.push(`${req.method} ${req.url} ${req.headers.authorization}`);
        reply(res, 200, PETS);
      }),
    );
    const tunnels: string[] = [];
    const proxy = createHttpServer((_req, res) => reply(res, 502, ''));
    proxy.on('connect', (req, client: Socket, head: Buffer) => {
      tunnels.push(`CONNECT ${req.url}`);
      const upstream = connect(apiPort, '127.0.0.1', () => {
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.on('error', () => client.destroy());
      client.on('error', () => upstream.destroy());
    });
    const proxyPort = await listen(proxy);
    return { apiSeen, tunnels, proxyUrl: `http://127.0.0.1:${proxyPort}` };
  }

  const envWith = (extra: Record<string, string>) =>
    processEnv({
      STORE_API_KEY: KEY,
      STORE_BASE_URL: 'https://api.proxy.test/v1',
      NODE_EXTRA_CA_CERTS: certificate.certFile,
      ...extra,
    });

  it('sends requests through HTTPS_PROXY', async () => {
    const { apiSeen, tunnels, proxyUrl } = await apiBehindProxy();
    const result = await store(['pets', 'list'], { env: envWith({ HTTPS_PROXY: proxyUrl }) });
    expect(result).toEqual({
      code: 0,
      signal: null,
      stdout: 'ID\tNAME\tCATEGORY\tSTATUS\n1\tRex\t1\t\n',
      stderr: '',
    });
    expect(tunnels).toEqual(['CONNECT api.proxy.test:443']);
    expect(apiSeen).toEqual([`GET /v1/pets Bearer ${KEY}`]);
  });

  it('honours the lower-case https_proxy too', async () => {
    const { tunnels, proxyUrl } = await apiBehindProxy();
    const result = await store(['pets', 'list', '--json'], {
      env: envWith({ https_proxy: proxyUrl }),
    });
    expect(result.stdout).toBe(`${PETS}\n`);
    expect(tunnels).toEqual(['CONNECT api.proxy.test:443']);
  });

  it('names a proxy whose name does not resolve; a host NO_PROXY sends to directly by its own', async () => {
    const proxied = await store(['pets', 'list', '--timeout', '3'], {
      env: envWith({ HTTPS_PROXY: 'http://proxy.invalid:3128' }),
    });
    expect(proxied.code).toBe(6);
    expect(proxied.stderr).toMatch(
      /^error: cannot reach the proxy proxy\.invalid:3128 \(for api\.proxy\.test\): (host not found|DNS lookup failed)/,
    );
    const { tunnels, proxyUrl } = await apiBehindProxy();
    const direct = await store(['pets', 'list', '--timeout', '3'], {
      env: envWith({ HTTPS_PROXY: proxyUrl, NO_PROXY: 'api.proxy.test' }),
    });
    expect(direct.stderr).toMatch(
      /^error: cannot reach api\.proxy\.test: (host not found|DNS lookup failed)/,
    );
    expect(tunnels).toEqual([]);
  });

  it('sends https through https_proxy only, as curl and Node do: not through http_proxy', async () => {
    // undici's own rule sent it to HTTP_PROXY when no https proxy was set.
    const { tunnels, proxyUrl } = await apiBehindProxy();
    const result = await store(['pets', 'list', '--timeout', '3'], {
      env: envWith({ HTTP_PROXY: proxyUrl, https_proxy: '' }),
    });
    expect(result.code).toBe(6);
    expect(result.stderr).toMatch(/^error: cannot reach api\.proxy\.test: /);
    expect(tunnels).toEqual([]);
  });

  it('takes an empty no_proxy as unset: NO_PROXY is used', async () => {
    const { tunnels, proxyUrl } = await apiBehindProxy();
    const result = await store(['pets', 'list', '--timeout', '3'], {
      env: envWith({ HTTPS_PROXY: proxyUrl, no_proxy: '', NO_PROXY: 'api.proxy.test' }),
    });
    expect(result.code).toBe(6);
    expect(tunnels).toEqual([]);
  });

  it('skips the proxy for hosts in NO_PROXY', async () => {
    const { tunnels, proxyUrl } = await apiBehindProxy();
    const result = await store(['pets', 'list', '--timeout', '3'], {
      env: envWith({ HTTPS_PROXY: proxyUrl, NO_PROXY: 'api.proxy.test' }),
    });
    // Straight to a host that does not exist: a network failure, and the proxy saw nothing.
    expect(result.code).toBe(6);
    expect(result.stdout).toBe('');
    expect(tunnels).toEqual([]);
  });

  it('never sends loopback requests through the proxy', async () => {
    const { tunnels, proxyUrl } = await apiBehindProxy();
    const local = await faultServer((_req, res) => reply(res, 200, PETS));
    const result = await store(['pets', 'list', '--json'], {
      env: envWith({ HTTP_PROXY: proxyUrl, HTTPS_PROXY: proxyUrl, STORE_BASE_URL: local.url }),
    });
    expect(result).toMatchObject({ code: 0, stdout: `${PETS}\n`, stderr: '' });
    expect(local.seen).toHaveLength(1);
    expect(tunnels).toEqual([]);
  });

  it('never sends requests to localhost through the proxy; `localhost.` is not loopback', async () => {
    const { tunnels, proxyUrl } = await apiBehindProxy();
    const local = await faultServer((_req, res) => reply(res, 200, PETS));
    const env = (url: string) =>
      envWith({ HTTP_PROXY: proxyUrl, HTTPS_PROXY: proxyUrl, STORE_BASE_URL: url });
    const plain = await store(['pets', 'list', '--json'], {
      env: env(local.url.replace('127.0.0.1', 'localhost')),
    });
    expect(plain).toMatchObject({ code: 0, stdout: `${PETS}\n`, stderr: '' });
    // The resolver asks DNS for `localhost.` (the hosts file's `localhost` does not match it),
    // and DNS may answer any address: no key over plain http there, nothing sent.
    const port = new URL(local.url).port;
    const qualified = await store(['pets', 'list'], { env: env(`http://localhost.:${port}/v1`) });
    expect(qualified).toEqual({
      code: 2,
      signal: null,
      stdout: '',
      stderr: `error: refusing to send the API key over plain HTTP to localhost.:${port}\nhint: use an https:// URL (plain http is allowed for loopback hosts only)\n`,
    });
    expect(local.seen).toHaveLength(1);
    expect(tunnels).toEqual([]);
  });
});
