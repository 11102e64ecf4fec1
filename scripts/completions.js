// `npm run completions`: writes completions/ from what `store completion <shell>` prints, so
// the committed scripts are the generated ones (test/completion/scripts.test.ts checks it).
// `node scripts/completions.js <folder>` writes them there instead (the test does).
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importSource } from './import-source.js';

const root = new URL('..', import.meta.url);
const bin = fileURLToPath(new URL('bin/store.js', root));
const outdir = process.argv[2] ?? fileURLToPath(new URL('completions', root));
// The list of shells and their file names, from the same module the program reads.
const { SCRIPT_FILES } = await importSource('src/completion/shells.ts');

for (const [shell, file] of Object.entries(SCRIPT_FILES)) {
  const script = execFileSync(process.execPath, [bin, 'completion', shell], { encoding: 'utf8' });
  writeFileSync(join(outdir, file), script);
  console.log(`wrote ${join(outdir, file)}`);
}
