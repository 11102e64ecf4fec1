#!/usr/bin/env node
// Entry shim. Kept to syntax that any Node parses (no `?.`, `??`), so an old Node prints one
// line instead of a syntax error.
// CommonJS (bin/package.json says so, as the package is ES modules): Node starts a CommonJS
// main script sooner than an ES module one, which sets up the ES loader first
// (docs/performance.md).
// Node's modules come from process.getBuiltinModule, past the version check (it exists from
// Node 22.3): an ES import of node:fs, node:os and node:path would build their namespaces.
//
// The program is one CommonJS file, dist/store.cjs, run through vm.Script with a V8 code cache
// made after a run of the same command: Node's own compile cache holds only the code compiled
// before a module runs, so every start compiled each function it called again (undici's,
// commander's, zod's, ours); with the functions a command used in its cache, `store pets list`
// starts sooner (docs/performance.md).
const [major, minor] = process.versions.node.split('.').map(Number);
let fs;
let path;

const BUNDLE = '../dist/store.cjs';
/** What the program requires from dist/ beside it (scripts/build.js, SIDE_FILES). */
const SIDE_FILE = /^\.\/([a-z]+)\.cjs$/;
// In the single executable this file is its main script, and dist/'s files are assets of the
// binary (scripts/build-binary.js, which defines STORE_SEA as a hash of them): the same program,
// read from there, with code caches of its own (named `…-sea-…`: a binary and an npm install of
// the same build would otherwise replace each other's).
const IN_BINARY = typeof STORE_SEA !== 'undefined';
const sideExports = new Map();
// The program requires only Node's own modules besides its side files: this file's require
// serves them (in the binary, the one that loads built-ins only), where module.createRequire
// would load node:module and its source-map code first.
const requireBuiltin = require;
/** The bundle's first line: `// @animal-store/cli <version> build <id>` (scripts/build.js). */
const HEADER = /^\/\/ \S+ (\S+) build ([0-9a-f]{16})\n/;

/**
 * A folder and its missing parents, 0700. Not mkdirSync's `recursive`: where a parent exists
 * and the folder still cannot be made (ENOENT under /proc: XDG_CACHE_HOME=/proc/x), Node's
 * loops forever at full CPU. (The program has the same in src/config/safe-fs.ts, makeFolders;
 * this file runs before it and loads none of it.)
 */
function makeFolders(dir) {
  // There already at every start but the first: a stat, rather than a mkdir's error.
  const found = fs.statSync(dir, { throwIfNoEntry: false });
  // biome-ignore lint/complexity/useOptionalChain: this file keeps to what any Node parses
  if (found && found.isDirectory()) return;
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
    return;
  } catch (error) {
    if (error.code === 'EEXIST' && fs.statSync(dir).isDirectory()) return;
    if (error.code !== 'ENOENT' || path.dirname(dir) === dir) throw error;
  }
  makeFolders(path.dirname(dir));
  try {
    fs.mkdirSync(dir, { mode: 0o700 });
  } catch (error) {
    if (error.code !== 'EEXIST' || !fs.statSync(dir).isDirectory()) throw error;
  }
}

/** Neither a link nor another user's, and writable by its owner only. */
function isPrivate(dir) {
  const stats = fs.lstatSync(dir);
  return stats.isDirectory() && stats.uid === process.getuid() && (stats.mode & 0o022) === 0;
}

/**
 * The user's own folder for code caches (XDG cache on Linux, the platform's cache folder
 * elsewhere), made if missing; undefined when it cannot be made, is not an absolute path (an
 * empty HOME would put it under the current folder) or is not private, as cached code in a
 * folder someone else can write is code they choose for us to run.
 */
let cacheDirMemo;
function cacheDir() {
  // Once per process: the program and a side file it loads share the folder.
  if (cacheDirMemo === undefined) cacheDirMemo = { dir: findCacheDir() };
  return cacheDirMemo.dir;
}

function findCacheDir() {
  try {
    const env = process.env;
    let base;
    if (process.platform === 'win32') base = env.LOCALAPPDATA;
    else if (env.XDG_CACHE_HOME && process.platform !== 'darwin') base = env.XDG_CACHE_HOME;
    // A relative XDG_CACHE_HOME is to be ignored (XDG Base Directory specification).
    if (!base || !path.isAbsolute(base)) {
      // On Unix os.homedir() is HOME when it is set (even empty), as libuv reads it: taken
      // from there, node:os is not loaded for it.
      const unixHome = process.platform !== 'win32' ? env.HOME : undefined;
      const home =
        unixHome !== undefined ? unixHome : process.getBuiltinModule('node:os').homedir();
      const under = { win32: ['AppData', 'Local'], darwin: ['Library', 'Caches'] };
      base = path.join(home, ...(under[process.platform] || ['.cache']));
      if (!path.isAbsolute(home)) return undefined;
    }
    const own = path.join(base, 'store');
    const caches = path.join(own, 'code-cache');
    // V8 refuses a cache made by another version: one folder per version, for users of two.
    const dir = path.join(caches, `v8-${process.versions.v8}-${process.arch}`);
    makeFolders(dir);
    // Windows: the folder under LOCALAPPDATA is the user's by its ACL; there is no uid.
    const win = process.platform === 'win32';
    if (win || (isPrivate(own) && isPrivate(caches) && isPrivate(dir))) return dir;
  } catch (_error) {
    // No home folder (a uid without a passwd entry), a folder that cannot be made: no cache
    // then, only start-up time is lost.
  }
  return undefined;
}

/**
 * The command's words and output (`pets-list-json`), which name its cache: each calls
 * different functions. Flags are skipped, with the value of those that take one. A short
 * reading of its own: it runs before any of the program (src/argv.ts) is loaded.
 */
function commandKey(argv) {
  const words = [];
  for (let i = 0; i < argv.length && words.length < 2; i += 1) {
    const arg = argv[i];
    if (arg === '-p' || arg === '--profile' || arg === '--timeout' || arg === '--jq') i += 1;
    else if (arg === '--') break;
    else if (/^[a-z]{1,20}$/.test(arg)) words.push(arg);
  }
  if (argv.some((arg) => /^--(?:json|jq)(?:=|$)/.test(arg))) words.push('json');
  else if (process.stdout.isTTY) words.push('tty');
  return withFlags(words.length > 0 ? words.join('-') : 'none');
}

/** A cache's key, and the hash of Node's flags when there are any (flagsKey). */
function withFlags(key) {
  const flags = flagsKey();
  return flags ? `${key}-${flags}` : key;
}

/**
 * Node's flags of this process (its command line and NODE_OPTIONS) as a short hash, none
 * without any. V8 refuses a cache made under other flags than its own: each set gets caches
 * of its own (`pets add --file` restarts under flags of its own: src/restart.ts), instead of
 * one run under flags and the next without rewriting the same file in turn.
 */
function flagsKey() {
  const text = `${process.execArgv.join('\0')}\0${process.env.NODE_OPTIONS || ''}`;
  if (text === '\0') return '';
  // FNV-1a: a few operations, where node:crypto would take milliseconds to load.
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash = Math.imul(hash ^ text.charCodeAt(i), 0x01000193) >>> 0;
  }
  return `f${hash.toString(36)}`;
}

/** The first bytes of the bundle: its version and build id, without reading it all. */
function readHeader(file) {
  if (IN_BINARY) {
    const asset = binaryAsset(file);
    const head = Buffer.from(asset, 0, Math.min(128, asset.byteLength)).toString('utf8');
    const match = HEADER.exec(head);
    return match ? { version: match[1], build: match[2] } : undefined;
  }
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

/** How long a cache that is not this build's is kept after it was written: another install
 * of store (a project's own beside a global one) may still use it. */
const STALE_MS = 7 * 24 * 60 * 60 * 1000;

/**
 * Tidies the code caches when one is written as `name` in `dir`: the same command's caches of
 * this build made for another copy of the file (rebuilt, edited) go at once; anything else
 * not written for a week goes too (other builds, other versions of V8, a write cut short), and
 * the folders of other versions of V8 once empty. Files that vanish meanwhile are no matter.
 */
function removeStale(dir, name) {
  const now = Date.now();
  const sameCommand = name.slice(0, name.lastIndexOf('-') + 1);
  const caches = path.dirname(dir);
  for (const folder of fs.readdirSync(caches)) {
    const where = path.join(caches, folder);
    let left = 0;
    for (const other of listed(where)) {
      const file = path.join(where, other);
      try {
        const rest = other.slice(sameCommand.length);
        const replaced =
          where === dir &&
          other.slice(0, sameCommand.length) === sameCommand &&
          /^[0-9a-z]+\.[0-9a-z]+\.bin$/.test(rest);
        if (other !== name && (replaced || now - fs.lstatSync(file).mtimeMs > STALE_MS)) {
          fs.rmSync(file, { force: true });
        } else {
          left += 1;
        }
      } catch (_error) {
        left += 1;
      }
    }
    if (left === 0 && where !== dir) tryRemoveFolder(where);
  }
}

/** The names in a folder; none if it cannot be read (or is not a folder). */
function listed(dir) {
  try {
    return fs.readdirSync(dir);
  } catch (_error) {
    return [];
  }
}

function tryRemoveFolder(dir) {
  try {
    fs.rmdirSync(dir);
  } catch (_error) {
    // Written to meanwhile, or not ours to remove: left.
  }
}

/**
 * A file of dist/, and a stamp of that copy for its cache's name: V8 itself checks only the
 * length of the source, and the name's build id is a hash of dist/ as built; the file's size
 * and time change if it is edited in place (patch-package). Size, time and text come from one
 * open file: a rebuild meanwhile cannot mix them. In the binary: the asset of that name,
 * stamped with the hash of the assets (not the binary's time: two copies of one binary would
 * replace each other's caches).
 */
function readProgram(file) {
  if (IN_BINARY) {
    const asset = binaryAsset(file);
    return {
      source: Buffer.from(asset).toString('utf8'),
      stamp: `${asset.byteLength.toString(36)}.${STORE_SEA}`,
    };
  }
  const fd = fs.openSync(file, 'r');
  try {
    const { size, mtimeMs } = fs.fstatSync(fd);
    return {
      source: fs.readFileSync(fd, 'utf8'),
      stamp: `${size.toString(36)}.${Math.trunc(mtimeMs).toString(36)}`,
    };
  } finally {
    fs.closeSync(fd);
  }
}

/** An asset of the single executable, as it is in the binary (read-only, not copied). */
function binaryAsset(name) {
  return process.getBuiltinModule('node:sea').getRawAsset(name);
}

/**
 * V8 checks a code cache's header and length, not the code in it: a cache damaged on the disk
 * crashed every start of its command (a V8 fatal error, or a segmentation fault) until it was
 * deleted. So a cache is written with a checksum of its bytes in its last four, and one whose
 * checksum differs is not given to V8 (and is replaced once the command has succeeded).
 */
function withChecksum(data) {
  const hasher = hasherFor(data.length);
  new Uint8Array(hasher.m.buffer).set(data);
  const sum = Buffer.alloc(4);
  sum.writeUInt32LE(hashOfMemory(hasher, data.length));
  return Buffer.concat([data, sum]);
}

/**
 * A cache file read straight into the hasher's memory (no copy); the code cache in it, or
 * undefined when its checksum differs. V8 reads the cache while the script is compiled, before
 * the memory is used again (by a side file's cache).
 */
function readIntactCache(file) {
  const fd = fs.openSync(file, 'r');
  try {
    const size = fs.fstatSync(fd).size;
    if (size <= 4) return undefined;
    const hasher = hasherFor(size);
    const bytes = new Uint8Array(hasher.m.buffer, 0, size);
    for (let read = 0; read < size; ) {
      const got = fs.readSync(fd, bytes, read, size - read, read);
      if (got === 0) return undefined; // cut short meanwhile
      read += got;
    }
    const end = size - 4;
    const sum =
      (bytes[end] | (bytes[end + 1] << 8) | (bytes[end + 2] << 16) | (bytes[end + 3] << 24)) >>> 0;
    return hashOfMemory(hasher, end) === sum ? bytes.subarray(0, end) : undefined;
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * FNV-1a over the bytes as little-endian 64-bit words (the last zero-padded), folded to 32
 * bits, then the length. In WebAssembly, made once per process: faster than loading node:zlib for
 * its crc32, or the same loop in JavaScript before V8 optimises it. The module is:
 *   (module (memory (export "m") 1)
 *     (func (export "h") (param $n i32) (result i32) (local $i i32) (local $h i64)
 *       (local.set $h (i64.const 0xcbf29ce484222325))
 *       (block $done (loop $next
 *         (br_if $done (i32.ge_u (local.get $i) (local.get $n)))
 *         (local.set $h (i64.mul (i64.xor (local.get $h) (i64.load (local.get $i)))
 *                                (i64.const 0x100000001b3)))
 *         (local.set $i (i32.add (local.get $i) (i32.const 8)))
 *         (br $next)))
 *       (i32.wrap_i64 (i64.xor (local.get $h) (i64.shr_u (local.get $h) (i64.const 32))))))
 */
const FNV_WASM =
  'AGFzbQEAAAABBgFgAX8BfwMCAQAFAwEAAQcJAgFtAgABaAAACkUBQwIBfwF+QqXGiKHInKf5SyECAkADQCABIABPDQEgAiABKQMAhUKzg4CAgCB+IQIgAUEIaiEBDAALCyACIAJCIIiFpws=';
let hasher;

/** The module's exports, its memory large enough for `size` bytes and the padding. */
function hasherFor(size) {
  if (!hasher) {
    hasher = new WebAssembly.Instance(new WebAssembly.Module(Buffer.from(FNV_WASM, 'base64')))
      .exports;
  }
  const more = Math.ceil((size + 8) / 65536) - hasher.m.buffer.byteLength / 65536;
  if (more > 0) hasher.m.grow(more);
  return hasher;
}

/** The checksum of the memory's first `length` bytes (what a previous use left after them is
 * not counted: the padding is zeroed). */
function hashOfMemory(exports, length) {
  const padded = (length + 7) & ~7;
  new Uint8Array(exports.m.buffer).fill(0, length, padded);
  return (exports.h(padded) ^ length) >>> 0;
}

/**
 * Runs a CommonJS file of dist/ with the code cache `key` when there is a valid one; otherwise,
 * once the command has succeeded, saves the code V8 compiled during the run for the next time.
 * The program's `require('./table.cjs')` (and its other side files: scripts/build.js) comes
 * here too, each with a cache of its own, once per process (`parent`: the program's build).
 */
function runWithCodeCache(file, key, parent) {
  const vm = process.getBuiltinModule('node:vm');
  const { source, stamp } = readProgram(file);
  // The program's own build id, read from the text that runs; side files take the program's.
  const header = parent || HEADER.exec(source.slice(0, 128));
  if (!header) throw new Error(`${file} is not a build of store`);
  const build = parent ? parent.build : header[2];
  const wrapped = `(function (exports, require, module, __filename, __dirname) {${source}\n})`;
  const compile = (cachedData) => new vm.Script(wrapped, { filename: file, cachedData });
  // The binary carries the caches of its common commands, made when it was built: its first
  // run is as quick as the next, and writes nothing.
  const builtIn = IN_BINARY ? builtInCache(key) : undefined;
  let script = builtIn && compile(builtIn);
  if (script && !script.cachedDataRejected) return run(script, file, build);
  const dir = cacheDir();
  const cacheName = `${build}${IN_BINARY ? '-sea' : ''}-${key}-${stamp}.bin`;
  const cacheFile = dir && path.join(dir, cacheName);
  let cachedData;
  try {
    if (cacheFile) cachedData = readIntactCache(cacheFile);
  } catch (_error) {
    // None yet.
  }
  if (!script || cachedData) script = compile(cachedData);
  if (cacheFile && (!cachedData || script.cachedDataRejected)) {
    process.once('exit', (code) => {
      // Not after a failure, nor once the program changed V8's flags (src/v8-flags.ts, bulk
      // add): V8 would refuse a cache made under other flags at every later start.
      if (code !== 0 || globalThis[Symbol.for('store.v8FlagsChanged')]) return;
      try {
        writeAtomically(cacheFile, withChecksum(script.createCachedData()));
        removeStale(dir, cacheName);
      } catch (_error) {
        // No cache then: only start-up time is lost.
      }
    });
  }
  return run(script, file, build);
}

/** The code cache for `key` that the binary was built with (scripts/build-binary.js), if any. */
function builtInCache(key) {
  try {
    return new Uint8Array(binaryAsset(`code-cache-${key}.bin`));
  } catch (_error) {
    return undefined; // none for this command
  }
}

/** Runs a compiled file of dist/ as CommonJS; returns its exports. */
function run(script, file, build) {
  // The program requires Node's modules, and its side files, which are handled here.
  const require = (id) => {
    const side = SIDE_FILE.exec(id);
    if (!side) return requireBuiltin(id);
    // Like require: run once, the same exports for every call.
    const sideFile = IN_BINARY ? id.slice(2) : path.join(path.dirname(file), id);
    if (!sideExports.has(sideFile)) {
      sideExports.set(sideFile, runWithCodeCache(sideFile, withFlags(side[1]), { build }));
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
  path = process.getBuiltinModule('node:path');
  const file = IN_BINARY ? 'store.cjs' : path.join(__dirname, BUNDLE);
  const argv = process.argv.slice(2);
  try {
    // The version, asked often (scripts, bug reports), needs none of the program: it is the
    // bundle's first line. Any other command reads that line with the rest of the bundle.
    const version = argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V');
    // Under --debug, stack traces point into src/ through the bundle's source map: Node
    // maps modules it loads itself, so the bundle is loaded by require, without the cache.
    // (The binary has no source maps: it runs as always.)
    const debug =
      !IN_BINARY &&
      (process.env.STORE_DEBUG === '1' ||
        process.env.STORE_DEBUG === 'true' ||
        argv.indexOf('--debug') !== -1);
    const header = version || debug ? readHeader(file) : undefined;
    if ((version || debug) && !header) throw new Error(`${file} is not a build of store`);
    if (version && wrote(header)) {
      // Written.
    } else {
      let program;
      if (debug) {
        process.setSourceMapsEnabled(true);
        program = process.getBuiltinModule('node:module').createRequire(__filename)(BUNDLE);
      } else {
        program = runWithCodeCache(file, commandKey(argv));
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
  const hint = IN_BINARY ? '' : ' (run `npm run build`?)';
  process.stderr.write(`store: cannot start: ${error.message}${hint}\n`);
  process.exitCode = 1;
}
