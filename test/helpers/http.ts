// nock for the in-process tests: no real connection is ever made, and every request
// nock did not expect is recorded so a test can assert that nothing was sent.
import nock from 'nock';
import { afterAll, afterEach, beforeAll, beforeEach, expect } from 'vitest';

export const API = 'https://api.animal-store.example';
export const STAGING = 'https://staging.api.animal-store.example';
export const KEY = 'test-key-abcdwxyz';

export const unexpected: string[] = [];

const onNoMatch = (req: { method?: string; path?: string; host?: string }) => {
  unexpected.push(`${req.method} ${req.host ?? ''}${req.path ?? ''}`);
};

beforeAll(() => {
  nock.disableNetConnect();
  nock.emitter.on('no match', onNoMatch);
});

beforeEach(() => {
  unexpected.length = 0;
});

afterEach(() => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  // A test that declared an interceptor it did not use, or sent a request nobody expected, fails.
  expect(pending, 'interceptors declared but not called').toEqual([]);
  expect(unexpected, 'requests nobody expected').toEqual([]);
});

afterAll(() => {
  nock.emitter.off('no match', onNoMatch);
  nock.enableNetConnect();
});

/** nock scope for the production base URL, expecting the test key. */
export function api(base = API, key = KEY) {
  return nock(base, { reqheaders: { authorization: `Bearer ${key}` } });
}
