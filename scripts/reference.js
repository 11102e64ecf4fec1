// `npm run reference`: writes docs/commands.json from what `store help --json` prints (every
// command, its flags, JSON fields and exit codes), indented for reading its diffs; the committed
// file is the generated one (test/commands/help-json.test.ts checks it). `node
// scripts/reference.js <file>` writes it there instead.
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const root = new URL('..', import.meta.url);
const bin = fileURLToPath(new URL('bin/store.js', root));
const file = process.argv[2] ?? fileURLToPath(new URL('docs/commands.json', root));
// A clean environment: the document must not depend on this machine's settings.
const text = execFileSync(process.execPath, [bin, 'help', '--json'], {
  encoding: 'utf8',
  env: { PATH: process.env.PATH ?? '' },
});
// Its numbers are exit codes and a version: JSON.parse holds them exactly.
writeFileSync(file, `${JSON.stringify(JSON.parse(text), null, 2)}\n`);
console.log(`wrote ${file}`);
