#!/usr/bin/env node
// Entry shim. Kept to syntax that any Node able to load ES modules parses (no `?.`, `??`,
// no top-level await), so an old Node prints one line instead of a syntax error.
// No `import` of Node's modules here: an ES import of node:fs, node:os and node:path builds
// their namespaces, ~11 ms of a 60 ms start (measured); process.getBuiltinModule does not, and
// it runs only past the version check (it exists from Node 22.3).
//
// The program is one CommonJS file, dist/store.cjs, run through vm.Script with a V8 code cache
// made after a run of the same command: Node's own compile cache holds only the code compiled
// before a module runs, so every start compiled each function it called again (undici's,
// commander's, zod's, ours); with the functions a command used in its cache, `store pets list`
// starts ≈25% sooner (measured; README, Performance).
const [major, minor] = process.versions.node.split('.').map(Number);
let fs;
let os;
let path;

const BUNDLE = '../dist/store.cjs';
/** What the program requires from dist/ beside it (scripts/build.js, SIDE_FILES). */
const SIDE_FILE = /^\.\/([a-z]+)\.cjs$/;
const sideExports = new Map();
/** The bundle's first line: `// @animal-store/cli <version> build <id>` (scripts/build.js). */
const HEADER = /^\/\/ \S+ (\S+) build ([0-9a-f]{16})\n/;

/** Neither a link nor another user's, and writable by its owner only. */
function isPrivate(dir) {
  const stats = fs.lstatSync(dir);
  return stats.isDirectory() && stats.uid === process.getuid() && (stats.mode & 0o022) === 0;
}

/**
 * The user's own folder for code caches (XDG cache on Linux, the platform's cache folder
 * elsewhere), made if missing; undefined when it cannot be made or is not private, as cached
 * code in a folder someone else can write is code they choose for us to run.
 */
function cacheDir() {
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
  const caches = path.join(own, 'code-cache');
  // V8 refuses a cache made by another version: one folder per version, for users of two.
  const dir = path.join(caches, `v8-${process.versions.v8}-${process.arch}`);
  try {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    // Windows: the folder under LOCALAPPDATA is the user's by its ACL; there is no uid.
    const win = process.platform === 'win32';
    if (win || (isPrivate(own) && isPrivate(caches) && isPrivate(dir))) return dir;
  } catch (_error) {
    // No cache then: only start-up time is lost.
  }
  return undefined;
}

/**
 * The command's words and output (`pets-list-json`), which name its cache: each calls
 * different functions. Flags are skipped, with the value of those that take one.
 */
function commandKey(argv) {
  const words = [];
  for (let i = 0; i < argv.length && words.length < 2; i += 1) {
    const arg = argv[i];
    if (arg === '-p' || arg === '--profile' || arg === '--timeout') i += 1;
    else if (arg === '--') break;
    else if (/^[a-z]{1,20}$/.test(arg)) words.push(arg);
  }
  if (argv.indexOf('--json') !== -1) words.push('json');
  else if (process.stdout.isTTY) words.push('tty');
  return words.length > 0 ? words.join('-') : 'none';
}

/** The first bytes of the bundle: its version and build id, without reading it all. */
function readHeader(file) {
  const fd = fs.openSync(file, 'r');
  try {
    const head = Buffer.alloc(128);
    const match = HEADER.exec(head.toString('utf8', 0, fs.readSync(fd, head, 0, 128, 0)));
    return match ? { version: match[1], build: match[2] } : undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/** Writes `data` to `file` whole or not at all: another store may be reading it. */
function writeAtomically(file, data) {
  const temp = `${file}.${process.pid}.tmp`;
  try {
    fs.writeFileSync(temp, data, { flag: 'wx', mode: 0o600 });
    fs.renameSync(temp, file);
  } catch (_error) {
    try {
      fs.unlinkSync(temp);
    } catch (_ignored) {
      // Never written.
    }
  }
}

/** How long the cache of another build is kept after it was written: another install of
 * store (a project's own beside a global one) may still use it. */
const STALE_MS = 7 * 24 * 60 * 60 * 1000;

/** Removes the caches of other builds, written over a week ago, from `dir`. */
function removeStale(dir, build) {
  const now = Date.now();
  for (const name of fs.readdirSync(dir)) {
    if (name.slice(0, build.length) === build) continue;
    const file = path.join(dir, name);
    if (now - fs.lstatSync(file).mtimeMs > STALE_MS) fs.rmSync(file, { force: true });
  }
}

/**
 * Runs a CommonJS file of dist/ with the code cache `key` when there is a valid one; otherwise,
 * once the command has succeeded, saves the code V8 compiled during the run for the next time.
 * The program's `require('./table.cjs')` (and conf.cjs, undici.cjs: scripts/build.js) comes
 * here too, each with a cache of its own, once per process.
 */
function runWithCodeCache(file, build, key) {
  const vm = process.getBuiltinModule('node:vm');
  const { createRequire } = process.getBuiltinModule('node:module');
  const source = fs.readFileSync(file, 'utf8');
  // V8 itself checks only the length of the source: the name holds the build id (a hash of
  // dist/), and the file's size and time, which change if it is edited in place (patch-package).
  const stats = fs.statSync(file);
  const stamp = `${stats.size.toString(36)}.${Math.trunc(stats.mtimeMs).toString(36)}`;
  const dir = cacheDir();
  const cacheFile = dir && path.join(dir, `${build}-${key}-${stamp}.bin`);
  let cachedData;
  try {
    if (cacheFile) cachedData = fs.readFileSync(cacheFile);
  } catch (_error) {
    // None yet.
  }
  const script = new vm.Script(
    `(function (exports, require, module, __filename, __dirname) {${source}\n})`,
    { filename: file, cachedData },
  );
  if (cacheFile && (!cachedData || script.cachedDataRejected)) {
    process.once('exit', (code) => {
      // Not after a failure, nor once the program changed V8's flags (bulk add): V8 would
      // refuse a cache made under other flags at every later start.
      if (code !== 0 || globalThis[Symbol.for('store.v8FlagsChanged')]) return;
      try {
        removeStale(dir, build);
        writeAtomically(cacheFile, script.createCachedData());
      } catch (_error) {
        // No cache then: only start-up time is lost.
      }
    });
  }
  const requireNode = createRequire(file);
  const require = (id) => {
    const side = SIDE_FILE.exec(id);
    if (!side) return requireNode(id);
    // Like require: run once, the same exports for every call.
    const sideFile = path.join(path.dirname(file), id);
    if (!sideExports.has(sideFile)) {
      sideExports.set(sideFile, runWithCodeCache(sideFile, build, side[1]));
    }
    return sideExports.get(sideFile);
  };
  const module = { exports: {} };
  script
    .runInThisContext()
    .call(module.exports, module.exports, require, module, file, path.dirname(file));
  return module.exports;
}

if (major < 22 || (major === 22 && minor < 19)) {
  process.stderr.write(`store: requires Node.js >= 22.19 (found v${process.versions.node})\n`);
  process.exitCode = 1;
} else {
  fs = process.getBuiltinModule('node:fs');
  os = process.getBuiltinModule('node:os');
  path = process.getBuiltinModule('node:path');
  const file = path.join(import.meta.dirname, BUNDLE);
  const argv = process.argv.slice(2);
  try {
    const header = readHeader(file);
    if (!header) throw new Error(`${file} is not a build of store`);
    if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V') && wrote(header)) {
      // Asked often (scripts, bug reports) and needs none of the program.
    } else {
      // Under --debug, stack traces point into src/ through the bundle's source map: Node
      // maps modules it loads itself, so the bundle is loaded by require, without the cache.
      const debug = process.env.STORE_DEBUG === '1' || process.env.STORE_DEBUG === 'true';
      let program;
      if (debug || argv.indexOf('--debug') !== -1) {
        process.setSourceMapsEnabled(true);
        program = process.getBuiltinModule('node:module').createRequire(import.meta.url)(BUNDLE);
      } else {
        program = runWithCodeCache(file, header.build, commandKey(argv));
      }
      program.cli().catch(cannotStart);
    }
  } catch (error) {
    cannotStart(error);
  }
}

/** Writes the version at once; false if stdout refused it, for the program to say why. */
function wrote(header) {
  try {
    return fs.writeSync(1, `${header.version}\n`) > 0;
  } catch (_error) {
    return false;
  }
}

/** Only reached when the program cannot load (e.g. dist/ not built): one line, no stack. */
function cannotStart(error) {
  process.stderr.write(`store: cannot start: ${error.message} (run \`npm run build\`?)\n`);
  process.exitCode = 1;
}
