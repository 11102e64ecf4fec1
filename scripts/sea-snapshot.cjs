// The single executable's main script when it carries a V8 start-up snapshot (scripts/sea.js,
// `snapshot: true`). Node runs this file once, at build time, in a snapshot builder: the
// program (dist/store.cjs, bundled into this file by esbuild as `store-program`, its side files
// with it) is evaluated, and what every command needs is loaded (preload: the command tree,
// commander, zod, the context); then V8's heap is saved into the binary, and each start of the
// binary begins from it and calls the function given to setDeserializeMainFunction.
// What depends on where and how the binary runs (its arguments, environment, terminal, config,
// cache folder, the time, process.stdout) is read by that function and after, never here: the
// build fails if loading the program reads any of it. Sockets, undici and llhttp's WebAssembly
// (an asset, read by the first request) are made at run time, as they cannot be saved.
const v8 = require('node:v8');

/** What the program may not read while it is loaded into the snapshot. */
const FORBIDDEN = ['env', 'argv', 'execArgv', 'stdout', 'stderr', 'stdin', 'cwd', 'hrtime'];
const read = new Set();
const restore = [];
for (const name of FORBIDDEN) {
  const own = Object.getOwnPropertyDescriptor(process, name);
  const original = process[name];
  Object.defineProperty(process, name, {
    configurable: true,
    enumerable: own ? own.enumerable : true,
    get() {
      if (byProgram()) read.add(`process.${name}`);
      return original;
    },
  });
  restore.push(() => {
    if (own) Object.defineProperty(process, name, own);
    else delete process[name];
  });
}
const dateNow = Date.now;
Date.now = () => {
  if (byProgram()) read.add('Date.now()');
  return dateNow();
};

/** Whether the caller is the program, not Node itself (the builder's own warnings write to
 * process.stderr, which Node makes again at each start). */
function byProgram() {
  const frames = new Error().stack.split('\n').slice(3);
  return frames.some((frame) => !/\(node:|at node:/.test(frame));
}

const program = require('store-program');
// The version, from the program's first line (scripts/sea.js defines it).
const version = `${STORE_VERSION}\n`;

program.preload().then(() => {
  for (const undo of restore) undo();
  Date.now = dateNow;
  if (read.size > 0) {
    throw new Error(
      `loading the program read ${[...read].join(', ')}: it would be in the snapshot`,
    );
  }
});

v8.startupSnapshot.setDeserializeMainFunction(() => {
  const argv = process.argv.slice(2);
  // The version, asked often (scripts, bug reports), is answered before anything else runs.
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V') && wroteVersion()) return;
  program.cli().catch(cannotStart);
});

/** Writes the version at once; false if stdout refused it, for the program to say why. */
function wroteVersion() {
  try {
    return require('node:fs').writeSync(1, version) > 0;
  } catch (_error) {
    return false;
  }
}

/** Only reached when the program cannot start: one line, no stack. */
function cannotStart(error) {
  process.stderr.write(`store: cannot start: ${error.message}\n`);
  process.exitCode = 1;
}
