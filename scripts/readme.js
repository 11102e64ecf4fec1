// `npm run readme`: rewrites the Commands table of README.md from the program (src/docs/readme.ts),
// so the committed table is the generated one (test/docs/readme.test.ts checks it).
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { importSource } from './import-source.js';

const file = fileURLToPath(new URL('../README.md', import.meta.url));
const { generatorProgram, withCommandsTable } = await importSource('src/docs/readme.ts');
writeFileSync(file, withCommandsTable(readFileSync(file, 'utf8'), await generatorProgram()));
console.log(`wrote the commands table of ${file}`);
