// `npm run man`: writes man/store.1 from the program (src/man/page.ts), so the committed page
// is the generated one (test/package/man.test.ts checks it). `node scripts/man.js <file>`
// writes it there instead.
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { importSource } from './import-source.js';

const file = process.argv[2] ?? fileURLToPath(new URL('../man/store.1', import.meta.url));
const { storeManPage } = await importSource('src/man/page.ts');
mkdirSync(dirname(file), { recursive: true });
writeFileSync(file, await storeManPage());
console.log(`wrote ${file}`);
