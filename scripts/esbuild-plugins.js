// esbuild plugins that keep Node's own modules off the start-up path of `store`. Each removes a
// cost measured on `store pets list --json` (Node 24, medians of interleaved runs); the start-up
// test (test/render/startup.test.ts) fails if one of these modules is loaded there again.
import { builtinModules } from 'node:module';
import { dirname } from 'node:path';

/**
 * undici's client.js requires client-h2.js at its top, and client-h2.js requires node:http2,
 * which loads node:tls: ≈35 ms on top of the ≈63 ms of `node -e 'require("http")'` (measured
 * on this project's loaded machine), for a protocol only
 * used when a TLS server offers h2 (and undici asks for it only with `allowH2`). Here
 * client.js gets a stand-in with the same signature that requires the real module (kept in
 * the bundle, as esbuild evaluates a CommonJS module on its first require) when first called.
 */
export function lazyHttp2() {
  return {
    name: 'lazy-undici-h2',
    setup(build) {
      build.onResolve({ filter: /^\.\/client-h2\.js$/ }, (args) => {
        if (!/[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client\.js$/.test(args.importer)) return;
        return { path: `${args.resolveDir}/client-h2.js`, namespace: 'lazy-h2' };
      });
      build.onLoad({ filter: /.*/, namespace: 'lazy-h2' }, (args) => ({
        contents: `module.exports = function connectH2(client, socket) {
  return require(${JSON.stringify(args.path)})(client, socket);
};`,
        loader: 'js',
        resolveDir: dirname(args.path),
      }));
    },
  };
}

/** Modules a dependency imports at its top but uses only on paths `store` rarely takes. */
const LAZY = new Set(['child_process']);

/**
 * An ES `import … from 'node:util'` (ours or a package's) makes Node build the module's
 * namespace, which reads every export, and many of them load a module when first read:
 * `util.parseArgs`, `util.diff`, `util.setTraceSigInt` (worker_threads), `fs.promises` (and
 * readline), `process.report`: ≈10 ms in all, from commander's imports alone.
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
