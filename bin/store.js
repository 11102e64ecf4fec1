#!/usr/bin/env node
// Entry shim. Kept to syntax that any Node able to load ES modules parses (no `?.`,
// no top-level await), so an old Node prints one line instead of a syntax error.
// No `import` of Node's modules here: an ES import of node:fs, node:os and node:path builds
// their namespaces, ~11 ms of a 60 ms start (measured); process.getBuiltinModule does not, and
// it runs only past the version check (it exists from Node 22.3).
const [major, minor] = process.versions.node.split('.').map(Number);
let fs;
let os;
let path;

/** Neither a link nor another user's, and writable by its owner only. */
function isPrivate(dir) {
  const stats = fs.lstatSync(dir);
  return stats.isDirectory() && stats.uid === process.getuid() && (stats.mode & 0o022) === 0;
}

/**
 * The user's own folder for Node's compile cache (XDG cache on Linux, the platform's cache
 * folder elsewhere), made if missing; undefined when it cannot be made or is not private,
 * as cached code in a folder someone else can write is code they choose for us to run.
 */
function compileCacheDir() {
  const home = os.homedir();
  const xdg = process.env.XDG_CACHE_HOME;
  let base = path.join(home, '.cache');
  if (process.platform === 'win32') {
    base = process.env.LOCALAPPDATA || path.join(home, 'AppData', 'Local');
  } else if (process.platform === 'darwin') {
    base = path.join(home, 'Library', 'Caches');
  } else if (xdg && path.isAbsolute(xdg)) {
    base = xdg;
  }
  const own = path.join(base, 'store');
  const dir = path.join(own, 'compile-cache');
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    // Windows: the folder under LOCALAPPDATA is the user's by its ACL; there is no uid.
    if (process.platform === 'win32' || (isPrivate(own) && isPrivate(dir))) return dir;
  } catch (_error) {
    // No cache then: only start-up time is lost.
  }
  return undefined;
}

if (major < 22 || (major === 22 && minor < 19)) {
  process.stderr.write(`store: requires Node.js >= 22.19 (found v${process.versions.node})\n`);
  process.exitCode = 1;
} else {
  fs = process.getBuiltinModule('node:fs');
  os = process.getBuiltinModule('node:os');
  path = process.getBuiltinModule('node:path');
  // Under --debug, stack traces point into src/ through the bundle's source maps. Node maps
  // only the modules loaded after this call, so it comes before the bundle is loaded; without
  // --debug the maps are never read.
  const debug = process.env.STORE_DEBUG === '1' || process.env.STORE_DEBUG === 'true';
  if (debug || process.argv.slice(2).indexOf('--debug') !== -1) {
    process.setSourceMapsEnabled(true);
  }
  // The compile cache lets later starts skip parsing the bundle's code.
  const dir = compileCacheDir();
  if (dir) process.getBuiltinModule('node:module').enableCompileCache(dir);
  import('../dist/main.js')
    .then((main) => main.cli())
    .catch((error) => {
      // Only reached when the program cannot load (e.g. dist/ not built): one line, no stack.
      process.stderr.write(`store: cannot start: ${error.message} (run \`npm run build\`?)\n`);
      process.exitCode = 1;
    });
}
