#!/usr/bin/env node
// Entry shim. Kept to syntax that any Node able to load ES modules parses (no `?.`,
// no top-level await), so an old Node prints one line instead of a syntax error.
import process from 'node:process';

const [major, minor] = process.versions.node.split('.').map(Number);

if (major < 22 || (major === 22 && minor < 19)) {
  process.stderr.write(`store: requires Node.js >= 22.19 (found v${process.versions.node})\n`);
  process.exitCode = 1;
} else {
  // Under --debug, stack traces point into src/ through the bundle's source maps. Node maps
  // only the modules loaded after this call, so it comes before the bundle is loaded; without
  // --debug the maps are never read.
  const debug = process.env.STORE_DEBUG === '1' || process.env.STORE_DEBUG === 'true';
  if (debug || process.argv.slice(2).indexOf('--debug') !== -1) {
    process.setSourceMapsEnabled(true);
  }
  import('node:module')
    // The compile cache lets later starts skip parsing the bundle's code.
    .then((mod) => mod.enableCompileCache())
    .then(() => import('../dist/main.js'))
    .then((main) => main.cli())
    .catch((error) => {
      // Only reached when the program cannot load (e.g. dist/ not built): one line, no stack.
      process.stderr.write(`store: cannot start: ${error.message} (run \`npm run build\`?)\n`);
      process.exitCode = 1;
    });
}
