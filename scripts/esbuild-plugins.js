// esbuild plugins that keep Node's own modules off the start-up path of `store`. Each only
// chooses what a module specifier resolves to (a stand-in of our own that loads the real module
// when first used); none edits a dependency's source text, so an upgrade cannot silently undo
// one. The start-up test (test/render/startup.test.ts) fails if a module is loaded there again;
// docs/performance.md has what each saves.
import { writeFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { join } from 'node:path';

/**
 * undici's client.js requires client-h2.js at its top, and client-h2.js requires node:http2,
 * which loads node:tls, for a protocol only used when a TLS server offers h2 (and undici asks for it only with `allowH2`). Here
 * client.js gets a stand-in with the same signature that requires the real module (kept in
 * the bundle, as esbuild evaluates a CommonJS module on its first require) when first called.
 */
export function lazyHttp2() {
  return {
    name: 'lazy-undici-h2',
    setup(build) {
      build.onResolve({ filter: /^\.\/client-h2\.js$/ }, (args) => {
        if (!/[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/.test(args.importer)) return;
        // The path as the source maps name it: relative, not this machine's.
        return {
          path: 'undici/lib/dispatcher/client-h2.js',
          namespace: 'lazy-h2',
          pluginData: { resolveDir: args.resolveDir },
        };
      });
      build.onLoad({ filter: /.*/, namespace: 'lazy-h2' }, (args) => ({
        contents: `module.exports = function connectH2(client, socket) {
  return require('./client-h2.js')(client, socket);
};`,
        loader: 'js',
        resolveDir: args.pluginData.resolveDir,
      }));
    },
  };
}

/** llhttp's WebAssembly builds, as undici ships them (base64 in a module) and as dist/ has them. */
export const LLHTTP_WASM = [
  { module: 'llhttp_simd-wasm.js', file: 'llhttp_simd.wasm' },
  { module: 'llhttp-wasm.js', file: 'llhttp.wasm' },
];

/**
 * undici ships llhttp's two WebAssembly builds (with SIMD, and without for the few machines
 * that lack it) as base64 text in modules: bundled, they would be read at every start, and a
 * request would decode the one it used (docs/performance.md). Here client-h1.js gets modules
 * that read the binary build from a file beside the bundle (an asset of the single executable
 * there): writeLlhttpWasm puts them there.
 */
export function llhttpWasmFiles() {
  return {
    name: 'llhttp-wasm-files',
    setup(build) {
      build.onResolve({ filter: /^\.\.\/llhttp\/llhttp(_simd)?-wasm\.js$/ }, (args) => {
        if (!/[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client-h1\.js$/.test(args.importer)) return;
        const wasm = LLHTTP_WASM.find(({ module }) => args.path.endsWith(`/${module}`));
        return {
          path: `undici/lib/llhttp/${wasm.module}`,
          namespace: 'llhttp-wasm',
          pluginData: { file: wasm.file },
        };
      });
      build.onLoad({ filter: /.*/, namespace: 'llhttp-wasm' }, (args) => ({
        // In the single executable, __dirname is not a folder of the disk (and reading a
        // file from the current folder would run what someone put there): its assets.
        contents: `const name = ${JSON.stringify(args.pluginData.file)};
const sea = process.getBuiltinModule('node:sea');
module.exports = sea.isSea()
  ? Buffer.from(sea.getRawAsset(name))
  : process.getBuiltinModule('node:fs').readFileSync(process.getBuiltinModule('node:path').join(__dirname, name));`,
        loader: 'js',
      }));
    },
  };
}

/** Writes the files llhttpWasmFiles reads into `dir`, from undici's own modules. */
export function writeLlhttpWasm(dir) {
  const require = createRequire(import.meta.url);
  for (const { module, file } of LLHTTP_WASM) {
    writeFileSync(join(dir, file), require(`undici/lib/llhttp/${module}`));
  }
}

/**
 * node:assert is slow to load (its error class, diff and inspection code), and undici
 * requires it at its top for `assert(condition)` checks that hold unless undici has a bug.
 * Here `assert` is a function that loads the real module only when a check fails, to throw
 * its AssertionError; its other members (`assert.strictEqual`…) load it when first read.
 */
export function lazyAssert() {
  return {
    name: 'lazy-assert',
    setup(build) {
      build.onResolve({ filter: /^(node:)?assert$/ }, () => ({
        path: 'assert',
        namespace: 'lazy-assert',
      }));
      build.onLoad({ filter: /.*/, namespace: 'lazy-assert' }, () => {
        const members = Object.keys(process.getBuiltinModule('node:assert'));
        return {
          contents: `const real = () => process.getBuiltinModule('node:assert');
function assert(value, message) {
  if (value) return;
  if (message instanceof Error) throw message;
  const { AssertionError } = real();
  throw new AssertionError({ actual: value, expected: true, message: message ?? 'The expression evaluated to a falsy value', operator: '==', stackStartFn: assert });
}
for (const key of ${JSON.stringify(members)}) {
  Object.defineProperty(assert, key, { get: () => real()[key], enumerable: true });
}
module.exports = assert;`,
          loader: 'js',
        };
      });
    },
  };
}

/** Modules a dependency imports at its top but uses only on paths `store` rarely takes. */
const LAZY = new Set(['child_process']);

/**
 * An ES `import … from 'node:util'` (ours or a package's) makes Node build the module's
 * namespace, which reads every export, and many of them load a module when first read:
 * `util.parseArgs`, `util.diff`, `util.setTraceSigInt` (worker_threads), `fs.promises` (and
 * readline), `process.report`: from commander's imports alone.
 * `process.getBuiltinModule` returns the module object without reading them. So every ES import
 * of a built-in in the bundle becomes a module that takes the object from getBuiltinModule and
 * exports each name as a pure call that reads it, which esbuild drops when nothing imports the
 * name: only what the code uses is read. Modules in LAZY (commander imports child_process for
 * executable subcommands, which `store` has none of) export a stand-in that loads the module on
 * first use, as a default export only: a named or namespace import of one fails the build
 * (scripts/bundle.js makes esbuild's "import is undefined" an error).
 */
export function builtinsWithoutNamespaces() {
  const names = new Set(builtinModules.filter((name) => !name.startsWith('_')));
  return {
    name: 'builtins-without-namespaces',
    setup(build) {
      build.onResolve({ filter: /^(node:)?[a-z_/]+$/ }, (args) => {
        const name = args.path.replace(/^node:/, '');
        if (!names.has(name) || args.kind !== 'import-statement') return;
        return { path: name, namespace: 'builtin' };
      });
      build.onLoad({ filter: /.*/, namespace: 'builtin' }, (args) => {
        const specifier = JSON.stringify(`node:${args.path}`);
        if (LAZY.has(args.path)) {
          return {
            contents: `let loaded;
export default new Proxy({}, {
  get: (_target, key) => (loaded ??= process.getBuiltinModule(${specifier}))[key],
});`,
            loader: 'js',
          };
        }
        // Object.keys, as Node's own ES wrapper of a built-in: not the hidden deprecated getters.
        const exports = Object.keys(process.getBuiltinModule(`node:${args.path}`))
          .filter((key) => isBindingName(key) && !key.startsWith('$$'))
          .map((key) => `export const ${key} = /* @__PURE__ */ $$read(${JSON.stringify(key)});`);
        return {
          contents: [
            `const $$module = process.getBuiltinModule(${specifier});`,
            'const $$read = (key) => $$module[key];',
            'export default $$module;',
            ...exports,
          ].join('\n'),
          loader: 'js',
        };
      });
    },
  };
}

/** Whether `name` can be a `const` binding (not `default`, `delete` or another reserved word). */
function isBindingName(name) {
  if (!/^[A-Za-z_$][\w$]*$/.test(name)) return false;
  try {
    new Function(`'use strict'; const ${name} = 0;`);
    return true;
  } catch {
    return false;
  }
}
