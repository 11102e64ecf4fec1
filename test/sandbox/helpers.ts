// Shared set-up for the sandbox tests: servers on ephemeral loopback ports, temp dirs, and a
// small HTTP helper over undici (real requests, no mocks).
import type { Readable } from 'node:stream';
import { request } from 'undici';
import { parseJson } from '../../src/json.js';
import { type Sandbox, type SandboxOptions, startSandbox } from '../../src/sandbox/server.js';

export const KEY = 'test-key-7f3a9c';
export const AUTH = `Bearer ${KEY}`;

/** A fresh temp folder, removed after the test (by test/setup.ts). */
export { tempDir } from '../helpers/cli.js';

const sandboxes: Sandbox[] = [];

/** Closes every sandbox started by the current test; use in afterEach. */
export async function cleanup(): Promise<void> {
  await Promise.all(sandboxes.splice(0).map((sandbox) => sandbox.close()));
}

export async function start(options: Partial<SandboxOptions> = {}): Promise<Sandbox> {
  const sandbox = await startSandbox({ port: 0, host: '127.0.0.1', apiKey: KEY, ...options });
  sandboxes.push(sandbox);
  return sandbox;
}

export interface CallOptions {
  /** The Authorization header; null to send none. */
  auth?: string | null;
  /** A raw request body; sent with Content-Type application/json unless `type` says otherwise. */
  body?: string | Buffer | Readable;
  /** The Content-Type header; null to send none. */
  type?: string | null;
}

export interface Response {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  json: unknown;
}

/** Sends one request to `path` under the sandbox's origin (path includes /v1). */
export async function call(
  sandbox: Sandbox,
  method: string,
  urlPath: string,
  { auth = AUTH, body, type = 'application/json' }: CallOptions = {},
): Promise<Response> {
  const headers: Record<string, string> = {};
  if (auth !== null) headers.authorization = auth;
  if (body !== undefined && type !== null) headers['content-type'] = type;
  const origin = new URL(sandbox.url).origin;
  const res = await request(`${origin}${urlPath}`, {
    method: method as 'GET',
    headers,
    ...(body === undefined ? {} : { body }),
  });
  const text = await res.body.text();
  return {
    status: res.statusCode,
    headers: res.headers,
    text,
    json: text === '' ? undefined : parseJson(text),
  };
}

export function errorBody(status: number, code: string, message: string) {
  return { code, message, status };
}
