// nock for the in-process tests. The rules (no connection off loopback, interceptors all used,
// no unexpected request) are switched on for every file by test/setup.ts, not by importing this.
import nock from 'nock';

export const API = 'https://api.animal-store.example';
export const STAGING = 'https://staging.api.animal-store.example';
export const KEY = 'test-key-abcdwxyz';

/** Requests nock saw that no interceptor answered and that did not go to a loopback server;
 * emptied before each test, asserted empty after it (test/setup.ts). */
export const unexpected: string[] = [];

/** host or host:port on the loopback interface: the only place a test may really connect to. */
export function isLoopbackHost(host: string): boolean {
  return /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|localhost|\[::1\])(:\d+)?$/.test(host);
}

/** nock's 'no match' listener (test/setup.ts): a request to a real loopback server passes
 * through nock unless the test mocked that origin; anything else was unexpected. */
export function recordUnexpected(req: { method: string; url: string }): void {
  const url = new URL(req.url);
  const mocked = nock.activeMocks().some((mock) => mock.includes(`//${url.host}/`));
  if (isLoopbackHost(url.host) && !mocked) return;
  unexpected.push(`${req.method} ${url.host}${url.pathname}${url.search}`);
}

/** nock scope for the production base URL, expecting the test key. */
export function api(base = API, key = KEY) {
  return nock(base, { reqheaders: { authorization: `Bearer ${key}` } });
}
