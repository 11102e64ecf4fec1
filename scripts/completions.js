// `npm run completions`: writes completions/ from what `store completion <shell>` prints, so
// the committed scripts are the generated ones (test/completion/scripts.test.ts checks it).
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { SCRIPT_FILES } from '../dist/completion/shells.js';

const root = new URL('..', import.meta.url);
const bin = fileURLToPath(new URL('bin/store.js', root));

for (const [shell, file] of Object.entries(SCRIPT_FILES)) {
  const script = execFileSync(process.execPath, [bin, 'completion', shell], { encoding: 'utf8' });
  writeFileSync(new URL(`completions/${file}`, root), script);
  console.log(`wrote completions/${file}`);
}
