// Loaded before every test file (vitest.config.ts setupFiles), so the rules hold whether or not a
// file imports helpers/http.ts: no connection leaves the machine, and in-process HTTP is either
// answered by a nock interceptor the test declared or goes to a real server on loopback.
// After each test: every declared interceptor was used, and no request went unanswered.
import nock from 'nock';
import { afterEach, beforeAll, beforeEach, expect } from 'vitest';
import { undoAll } from './helpers/cleanup.js';
import { isLoopbackHost, recordUnexpected, unexpected } from './helpers/http.js';

// Once per worker: without isolation this file runs again for every test file.
if (!nock.emitter.listeners('no match').includes(recordUnexpected)) {
  nock.emitter.on('no match', recordUnexpected);
}

beforeAll(() => {
  // test/sandbox/ tests the server through raw clients of its own (streamed bodies, bytes on a
  // socket). nock's socket-level interception would stand between them and buffer those bodies,
  // so it is off there; nothing in those files runs the CLI or leaves loopback.
  const sandboxFile = expect.getState().testPath?.includes('/test/sandbox/') === true;
  if (sandboxFile) nock.restore();
  else if (!nock.isActive()) nock.activate();
});

beforeEach(() => {
  // Reset per test: a test may not leave the network wider open for the next one.
  nock.disableNetConnect();
  nock.enableNetConnect(isLoopbackHost);
  unexpected.length = 0;
});

afterEach(async () => {
  const pending = nock.pendingMocks();
  nock.cleanAll();
  // Temp folders, loopback servers and sandbox processes of this test (helpers/cleanup.ts).
  await undoAll();
  // A test that declared an interceptor it did not use, or sent a request nobody expected, fails.
  expect(pending, 'interceptors declared but not called').toEqual([]);
  expect(unexpected, 'requests nobody expected').toEqual([]);
});
