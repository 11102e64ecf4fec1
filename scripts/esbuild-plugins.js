// esbuild plugins that keep Node's own modules off the start-up path of `store`. Each removes a
// cost measured on `store pets list --json` (Node 24, medians of interleaved runs); the start-up
// test (test/render/startup.test.ts) fails if one of these modules is loaded there again.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { builtinModules, createRequire } from 'node:module';
import { join } from 'node:path';

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

/**
 * undici's HTTP/1 client requires llhttp's constants.js, which builds at its top every table
 * llhttp's parser generator uses (character classes, method and status lists, maps made
 * from them): ≈1.2 ms, for the two enums the client reads (`ERROR` and `TYPE`). Here
 * client-h1.js gets those two as a literal, taken from the real module at build time; the
 * build fails if client-h1.js reads anything else of it (a newer undici), so that nothing
 * goes missing at run time.
 */
export function llhttpEnumsOnly() {
  const USED = ['ERROR', 'TYPE'];
  return {
    name: 'llhttp-enums-only',
    setup(build) {
      build.onResolve({ filter: /^\.\.\/llhttp\/constants\.js$/ }, (args) => {
        if (!/[\\/]undici[\\/]lib[\\/]dispatcher[\\/]client-h1\.js$/.test(args.importer)) return;
        // Every mention of the module's binding, past its declaration and the specifier.
        const uses = readFileSync(args.importer, 'utf8').match(/\bconstants\b(\.\w+)?/g) ?? [];
        const other = uses.filter((use) => !USED.some((name) => use === `constants.${name}`));
        const expected = ['constants', 'constants.js'];
        if (other.join() !== expected.join()) {
          return {
            errors: [
              {
                text: `undici's client-h1.js uses more of llhttp's constants than ${USED.join(' and ')}: extend llhttpEnumsOnly`,
              },
            ],
          };
        }
        return {
          path: 'undici/lib/llhttp/constants.js',
          namespace: 'llhttp-enums',
          pluginData: { file: join(args.resolveDir, '../llhttp/constants.js') },
        };
      });
      build.onLoad({ filter: /.*/, namespace: 'llhttp-enums' }, (args) => {
        const constants = createRequire(import.meta.url)(args.pluginData.file);
        const used = Object.fromEntries(USED.map((name) => [name, constants[name]]));
        return { contents: `module.exports = ${JSON.stringify(used)};`, loader: 'js' };
      });
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
 * that lack it) as base64 text in modules, 72 KB each: bundled, they were 144 KB of the 515 KB
 * read at every start, and a request decoded the one it used. Here client-h1.js gets modules
 * that read the binary build from a file beside the bundle (54 KB; an asset of the single
 * executable there): writeLlhttpWasm puts them there.
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
 * node:assert takes ≈1.6 ms to load (its error class, diff and inspection code), and undici
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

/**
 * undici requires node:http at the top of two files, for what a request to the service never
 * uses: core/util.js compares a stream's class with IncomingMessage before destroying it, and
 * dispatcher/client.js reads `http.maxHeaderSize` as it loads, for clients given no
 * `maxHeaderSize` (src/api/transport.ts gives one). Loading node:http (its agent, client,
 * server and parser) takes ≈1.8 ms once node:net is loaded. Here each file asks node:http when
 * it needs it: util.js only for a class named IncomingMessage (none exists unless node:http was
 * loaded), client.js when a client is made without `maxHeaderSize`. The build fails if either
 * file's code differs from what these edits expect (a newer undici), so nothing is left reading
 * a module that is no longer there.
 */
export function lazyHttpInUndici() {
  return sourceEdits('lazy-http-in-undici', 'lazyHttpInUndici', 'undici/lib', {
    'core/util.js': {
      edits: [
        ["const { IncomingMessage } = require('node:http')\n", ''],
        [
          'Object.getPrototypeOf(stream).constructor === IncomingMessage',
          'isIncomingMessage(Object.getPrototypeOf(stream).constructor)',
        ],
        [
          /$/,
          `
function isIncomingMessage (type) {
  return typeof type === 'function' && type.name === 'IncomingMessage' &&
    type === require('node:http').IncomingMessage
}
`,
        ],
      ],
      unused: /\bhttp\.|\bIncomingMessage\b|['"]node:http['"]/,
      what: 'node:http',
    },
    'dispatcher/client.js': {
      edits: [
        ["const http = require('node:http')\n", ''],
        [
          `const getDefaultNodeMaxHeaderSize = http &&
  http.maxHeaderSize &&
  Number.isInteger(http.maxHeaderSize) &&
  http.maxHeaderSize > 0
  ? () => http.maxHeaderSize
  : () => { throw new InvalidArgumentError('http module not available or http.maxHeaderSize invalid') }`,
          `const getDefaultNodeMaxHeaderSize = () => {
  const { maxHeaderSize } = require('node:http')
  if (Number.isInteger(maxHeaderSize) && maxHeaderSize > 0) return maxHeaderSize
  throw new InvalidArgumentError('http module not available or http.maxHeaderSize invalid')
}`,
        ],
      ],
      unused: /\bhttp\.|\bIncomingMessage\b|['"]node:http['"]/,
      what: 'node:http',
    },
  });
}

/**
 * A regular expression with a Unicode property class (`\p{…}`) has ICU build that class's set
 * of code points when it is first used, in every process: ≈1.5 ms for commander's
 * `\p{ID_Continue}`, which every Option's constructor tests on its flags (whether they end in
 * `name...>`, a variadic option). Here the test looks for the `...>` first, with a plain
 * expression, and asks the Unicode one only then: the same answer, and no option of `store` is
 * variadic.
 */
export function asciiFirstInCommander() {
  return sourceEdits('ascii-first-in-commander', 'asciiFirstInCommander', 'commander/lib', {
    'option.js': {
      edits: [
        [
          'this.variadic = /\\p{ID_Continue}\\.\\.\\.[>\\]]$/u.test(flags);',
          'this.variadic = /\\.\\.\\.[>\\]]$/.test(flags) && /\\p{ID_Continue}\\.\\.\\.[>\\]]$/u.test(flags);',
        ],
      ],
      unused: /\\p\{/,
      what: 'a Unicode property class',
    },
  });
}

/**
 * undici builds, as it loads, a search tree of the ≈100 header names it knows, to lower-case a
 * response's header names without making a string of each (≈1 ms: ≈2,000 nodes, in the
 * interpreter, at every start). Its callers fall back to lower-casing the name's text when the
 * tree does not know it, which gives the same name. Here the tree is built once many names have
 * been looked up (a bulk import's answers), and until then every lookup takes that fallback.
 */
export function lazyHeaderTree() {
  return sourceEdits('lazy-header-tree', 'lazyHeaderTree', 'undici/lib', {
    'core/tree.js': {
      edits: [
        [
          `const tree = new TernarySearchTree()

for (let i = 0; i < wellknownHeaderNames.length; ++i) {
  const key = headerNameLowerCasedRecord[wellknownHeaderNames[i]]
  tree.insert(key, key)
}
`,
          `let built = null
let lookups = 0
const tree = {
  lookup (key) {
    if (built === null) {
      if (++lookups <= 256) return null
      built = new TernarySearchTree()
      for (let i = 0; i < wellknownHeaderNames.length; ++i) {
        const key = headerNameLowerCasedRecord[wellknownHeaderNames[i]]
        built.insert(key, key)
      }
    }
    return built.lookup(key)
  }
}
`,
        ],
      ],
      unused: /\btree\.insert\b/,
      what: 'the tree',
      // Its one user, util.js, must fall back to the lower-cased text at each lookup.
      check: (path) => {
        const util = readFileSync(join(path, '../util.js'), 'utf8');
        // Every lookup, whatever it is given, up to the end of its line.
        const lookups = util.match(/\btree\.lookup\([^\n]*/g) ?? [];
        const fallback = "tree.lookup(value) ?? value.toString('latin1').toLowerCase()";
        const users = readdirSync(join(path, '../..'), { recursive: true })
          .filter((file) => file.endsWith('.js'))
          .filter((file) =>
            // Any require of a module named tree, from any depth (../../core/tree.js).
            /require\(['"](?:\.\.?\/)+(?:[\w-]+\/)*tree(?:\.js)?['"]\)/.test(
              readFileSync(join(path, '../..', file), 'utf8'),
            ),
          );
        if (lookups.length === 0 || lookups.some((line) => line.trim() !== fallback)) {
          return 'core/util.js does not fall back to the lower-cased name at each lookup';
        }
        if (users.join() !== join('core', 'util.js'))
          return `the tree has other users: ${users.join(', ')}`;
        return undefined;
      },
    },
  });
}

/**
 * A plugin (`name`, called `caller` in its errors) that edits files of a package (`root`:
 * `undici/lib`) as it bundles them: `files` maps a path under `root` to its edits (each
 * [text or pattern, replacement], applied once: the text must be found exactly once) and to
 * what the rest of the file must not hold (`unused`, which `what` names), and perhaps to a
 * `check` of the package around it (a reason to refuse, or undefined). The build fails
 * when a file's code is not what the edits expect (a newer version of the package), so that
 * nothing is left using what an edit took away.
 */
function sourceEdits(name, caller, root, files) {
  const paths = Object.keys(files).map((file) => `${root}/${file}`);
  const escaped = paths.map((path) => path.replace(/[.]/g, '\\.').replace(/\//g, '[\\\\/]'));
  const filter = new RegExp(`[\\\\/](${escaped.join('|')})$`);
  return {
    name,
    setup(build) {
      build.onLoad({ filter }, (args) => {
        const normal = args.path.replace(/\\/g, '/');
        const file = Object.keys(files).find((key) => normal.endsWith(`/${root}/${key}`));
        const { edits, unused, what, check } = files[file];
        const refused = check?.(args.path);
        if (refused) return { errors: [{ text: `${root}/${file}: ${refused}: update ${caller}` }] };
        let contents = readFileSync(args.path, 'utf8');
        // What is left of the file once the edited code is taken out.
        let rest = contents;
        for (const [from, to] of edits) {
          const found = typeof from === 'string' ? contents.split(from).length - 1 : 1;
          if (found !== 1) {
            const shown = JSON.stringify(String(from).slice(0, 60));
            return {
              errors: [
                {
                  text: `${root}/${file} is not the code ${caller} edits (${shown} found ${found} times): update it`,
                },
              ],
            };
          }
          // A function, so that a `$&` or `$'` in the replacement stays as written.
          contents = contents.replace(from, () => to);
          rest = rest.replace(from, '');
        }
        if (unused.test(rest)) {
          return {
            errors: [{ text: `${root}/${file} uses ${what} elsewhere too: extend ${caller}` }],
          };
        }
        return { contents, loader: 'js' };
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
