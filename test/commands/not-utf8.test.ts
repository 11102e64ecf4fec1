// Text on the command line that was not UTF-8 (a Latin-1 terminal, `"$(cat latin1.txt)"`):
// Node hands it over with U+FFFD in place of its letters, which would be sent so. Refused,
// nothing sent, the same as those bytes on stdin or in a file.
import { spawnSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { baseEnv, run } from '../helpers/cli.js';
import { KEY, unexpected } from '../helpers/http.js';
import { BIN } from '../helpers/process.js';

const env = () => baseEnv({ STORE_API_KEY: KEY });
const notUtf8 = (what: string) =>
  `error: ${what} holds bytes that are not UTF-8 (U+FFFD stands in for them); nothing was sent\n`;

describe('text on the command line that is not UTF-8', () => {
  it.each([
    [['pets', 'add', '--name', 'Caf\uFFFD', '--category-id', '1'], '--name'],
    [['messages', 'send', 'Caf\uFFFD ouvert'], 'the message'],
    [['api', '/pets', '-f', 'name=Caf\uFFFD', '-F', 'categoryId=1'], 'the field "name"'],
    [['api', '/pets', '-F', 'note=\uFFFD'], 'the field "note"'],
    [['api', '/pets?status=Caf\uFFFD'], 'the path'],
  ])('%j is refused with exit 2, nothing sent', async (argv, what) => {
    expect(await run(argv, { env: env() })).toEqual({
      code: 2,
      stdout: '',
      stderr: notUtf8(what),
      prompts: [],
    });
    expect(unexpected).toEqual([]);
  });

  it('is refused as a process too: the bytes as a shell passes them', () => {
    // $'\xe9' is a Latin-1 é: one byte that is not UTF-8.
    const result = spawnSync(
      'bash',
      ['-c', `"${process.execPath}" "${BIN}" pets add --name $'Caf\\xe9' --category-id 1`],
      {
        encoding: 'utf8',
        env: { ...process.env, ...env(), STORE_BASE_URL: 'http://127.0.0.1:9/v1' },
      },
    );
    expect({ status: result.status, stdout: result.stdout, stderr: result.stderr }).toEqual({
      status: 2,
      stdout: '',
      stderr: notUtf8('--name'),
    });
  });
});
