// The process as a shell meets it: bin/store.js run as a child (against the sandbox, also a
// process, where it needs a server).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { startSandbox, store } from '../helpers/process.js';

describe('the process', () => {
  it('prints one line and exits 1 on a Node older than 22.19', async () => {
    const result = await store(['--version'], {
      nodeArgs: [
        '--import',
        'data:text/javascript,Object.defineProperty(process.versions,"node",{value:"22.18.0"})',
      ],
    });
    expect(result).toEqual({
      code: 1,
      signal: null,
      stdout: '',
      stderr: 'store: requires Node.js >= 22.19 (found v22.18.0)\n',
    });
  });

  it('prints its version', async () => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(await store(['--version'])).toEqual({
      code: 0,
      signal: null,
      stdout: `${pkg.version}\n`,
      stderr: '',
    });
  });

  it('reports an unknown command with a suggestion and exit 2, no stack trace', async () => {
    expect(await store(['pest', 'list'])).toEqual({
      code: 2,
      signal: null,
      stdout: '',
      stderr: "error: unknown command 'pest' (Did you mean pets?)\n",
    });
  });

  it('ends quietly when the reader closes the pipe early (| head -1)', async () => {
    const sandbox = await startSandbox(['--seed', '100']);
    const { spawnSync } = await import('node:child_process');
    const script = `"${process.execPath}" "${join(process.cwd(), 'bin/store.js')}" pets list --limit 100 | head -1; echo "exit=\${PIPESTATUS[0]}" >&2`;
    const result = spawnSync('bash', ['-c', script], { env: sandbox.env(), encoding: 'utf8' });
    expect(result.stdout).toBe('ID\tNAME\tCATEGORY\tSTATUS\n');
    expect(result.stderr).toBe('exit=0\n');
  });
});
