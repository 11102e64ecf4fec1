// `npm run completions` (scripts/completions.js) must keep working: it writes completions/
// from what `store completion <shell>` prints, and what it writes is what is committed.
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';
import { SCRIPT_FILES, SHELLS } from '../../src/completion/shells.js';
import { tempDir } from '../helpers/cli.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

it('npm run completions writes the committed completions/ scripts', () => {
  const outdir = tempDir();
  const result = spawnSync(process.execPath, [join(ROOT, 'scripts/completions.js'), outdir], {
    encoding: 'utf8',
  });
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  expect(result.stdout).toBe(
    SHELLS.map((shell) => `wrote ${join(outdir, SCRIPT_FILES[shell])}\n`).join(''),
  );
  for (const shell of SHELLS) {
    const file = SCRIPT_FILES[shell];
    expect(readFileSync(join(outdir, file), 'utf8')).toBe(
      readFileSync(join(ROOT, 'completions', file), 'utf8'),
    );
  }
});

/** A fresh home folder with `store` on PATH as a user has it: a command that runs this
 * checkout's bin/store.js; each line run there by bash must succeed quietly. */
function runInFreshHome(lines: readonly string[]): string {
  const home = tempDir();
  const bin = join(home, 'bin');
  mkdirSync(bin);
  writeFileSync(
    join(bin, 'store'),
    `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(join(ROOT, 'bin/store.js'))} "$@"\n`,
    { mode: 0o755 },
  );
  for (const line of lines) {
    const result = spawnSync('bash', ['-c', line], {
      encoding: 'utf8',
      env: { HOME: home, PATH: `${bin}:${process.env.PATH}`, STORE_CONFIG_DIR: join(home, 'cfg') },
    });
    expect({ line, stderr: result.stderr, status: result.status }).toEqual({
      line,
      stderr: '',
      status: 0,
    });
  }
  return home;
}

/** The zsh and fish scripts written under `home` are the committed ones. */
function expectScriptsIn(home: string): void {
  for (const [shell, file] of [
    ['zsh', '.zfunc/_store'],
    ['fish', '.config/fish/completions/store.fish'],
  ] as const) {
    expect(readFileSync(join(home, file), 'utf8')).toBe(
      readFileSync(join(ROOT, 'completions', SCRIPT_FILES[shell]), 'utf8'),
    );
  }
}

it('the README’s install lines work in a fresh home folder, each writing its shell’s script', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const block = /Install it once for your shell:\n\n```sh\n([^`]*)```/.exec(readme)?.[1] ?? '';
  const lines = block.split('\n').filter((line) => line !== '');
  expect(lines.map((line) => /# (\w+)/.exec(line)?.[1])).toEqual(['bash', 'zsh', 'fish']);
  const home = runInFreshHome(lines);
  expect(readFileSync(join(home, '.bashrc'), 'utf8')).toBe('source <(store completion bash)\n');
  expectScriptsIn(home);
});

it('the examples of store completion --help work in a fresh home folder too', () => {
  const help = spawnSync(process.execPath, [join(ROOT, 'bin/store.js'), 'completion', '--help'], {
    encoding: 'utf8',
    // Wide enough that no example is wrapped.
    env: { ...process.env, COLUMNS: '300' },
  });
  const examples = help.stdout
    .split('\n')
    .filter((line) => line.startsWith('  $ '))
    .map((line) => line.slice(4));
  expect(examples).toHaveLength(3);
  expectScriptsIn(runInFreshHome(examples));
});
