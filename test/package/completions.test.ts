// `npm run completions` (scripts/completions.js) must keep working: it writes completions/
// from what `store completion <shell>` prints, and what it writes is what is committed.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
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
