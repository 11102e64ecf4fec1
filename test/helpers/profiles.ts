// Profiles as the built-in table lists them, and config.json written from an object: shared by
// the profile command tests and the precedence tests.
import { expect } from 'vitest';
import { run, writeConfigFile } from './cli.js';
import { API, STAGING } from './http.js';

export const PROD_URL = `${API}/v1`;
export const STAGING_URL = `${STAGING}/v1`;
export const SANDBOX_URL = 'http://127.0.0.1:4010/v1';
export const STORED_KEY = 'stored-secret-key-5678';

export function writeConfig(file: string, data: unknown): string {
  const text = JSON.stringify(data);
  writeConfigFile(file, text);
  return text;
}

export const BUILTIN_ROWS = [
  { name: 'production', baseUrl: PROD_URL, messagesUrl: PROD_URL, current: true, hasKey: false },
  {
    name: 'staging',
    baseUrl: STAGING_URL,
    messagesUrl: STAGING_URL,
    current: false,
    hasKey: false,
  },
  {
    name: 'sandbox',
    baseUrl: SANDBOX_URL,
    messagesUrl: SANDBOX_URL,
    current: false,
    hasKey: false,
  },
];

export async function listJson(env: Record<string, string | undefined>): Promise<unknown> {
  const result = await run(['profile', 'list', '--json'], { env });
  expect(result).toMatchObject({ code: 0, stderr: '' });
  return JSON.parse(result.stdout);
}
