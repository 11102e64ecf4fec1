// Imports a module of src/ from a script: esbuild bundles it (TypeScript, `.js` specifiers
// for `.ts` files) into a temporary file, which is imported and removed. For the generators
// (`npm run man`, `npm run completions`) that need the program's own tables, not dist/.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { build } from 'esbuild';
import { defines } from './defines.js';

const root = fileURLToPath(new URL('..', import.meta.url));

/** The module at `path` (relative to the repository, e.g. 'src/man/page.ts'). */
export async function importSource(path) {
  // Inside node_modules, so that the dependencies left out of the bundle resolve from it.
  const cache = join(root, 'node_modules', '.cache');
  mkdirSync(cache, { recursive: true });
  const dir = mkdtempSync(join(cache, 'store-source-'));
  const outfile = join(dir, 'module.mjs');
  try {
    await build({
      entryPoints: [join(root, path)],
      outfile,
      bundle: true,
      format: 'esm',
      platform: 'node',
      // Dependencies are imported from node_modules as they are.
      packages: 'external',
      define: defines(),
      absWorkingDir: root,
      logLevel: 'warning',
    });
    return await import(pathToFileURL(outfile).href);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
