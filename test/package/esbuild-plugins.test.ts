// The build's stand-ins for modules that cost start-up time (scripts/esbuild-plugins.js) must
// behave as the modules they replace wherever the bundle can tell: these build small entries
// with each plugin and run the output. The start-up test (test/render/startup.test.ts) checks
// that the real modules are no longer loaded by a request.
import { execFileSync } from 'node:child_process';
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { build, type Plugin } from 'esbuild';
import { describe, expect, it } from 'vitest';
import {
  asciiFirstInCommander,
  LLHTTP_WASM,
  lazyAssert,
  lazyHeaderTree,
  lazyHttp2,
  lazyHttpInUndici,
  llhttpEnumsOnly,
  llhttpWasmFiles,
  writeLlhttpWasm,
} from '../../scripts/esbuild-plugins.js';
import { tempDir } from '../helpers/cli.js';
import { BIN } from '../helpers/process.js';

const ROOT = join(BIN, '../..');

/** Bundles `contents` (CommonJS) with `plugins`; returns the module's exports. */
async function bundled(contents: string, plugins: Plugin[], resolveDir = ROOT) {
  const result = await build({
    stdin: { contents, resolveDir, sourcefile: 'entry.cjs' },
    bundle: true,
    platform: 'node',
    format: 'cjs',
    write: false,
    logLevel: 'silent',
    plugins,
  });
  const module = { exports: {} as Record<string, unknown> };
  new Function('module', 'exports', 'require', result.outputFiles[0]?.text ?? '')(
    module,
    module.exports,
    createRequire(join(ROOT, 'entry.cjs')),
  );
  return module.exports;
}

/** `source` as the file at `path` of a package (`undici/lib/core/util.js`) in a temp
 * node_modules; returns the file's folder. */
function fakePackageFile(path: string, source: string): string {
  const file = join(tempDir(), 'node_modules', path);
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, source);
  return dirname(file);
}

describe('lazyAssert', () => {
  const load = async () =>
    (await bundled("module.exports = { assert: require('node:assert') };", [lazyAssert()]))
      .assert as ((value: unknown, message?: unknown) => void) & Record<string, unknown>;

  it('passes a truthy value and throws node’s AssertionError for a falsy one', async () => {
    const assert = await load();
    expect(assert(1)).toBeUndefined();
    expect(() => assert(0, 'a socket without a client')).toThrow(
      expect.objectContaining({
        name: 'AssertionError',
        code: 'ERR_ASSERTION',
        message: 'a socket without a client',
        actual: 0,
        expected: true,
        operator: '==',
      }),
    );
    expect(() => assert(null)).toThrow('The expression evaluated to a falsy value');
    const own = new TypeError('thrown as given');
    expect(() => assert(false, own)).toThrow(own);
  });

  it('gives the real module’s other members', async () => {
    const assert = await load();
    const real = process.getBuiltinModule('node:assert');
    expect(assert.strictEqual).toBe(real.strictEqual);
    expect(assert.AssertionError).toBe(real.AssertionError);
    expect(Object.keys(assert)).toEqual(Object.keys(real));
    expect(() =>
      (assert.deepStrictEqual as typeof real.deepStrictEqual)({ a: 1 }, { a: 2 }),
    ).toThrow(real.AssertionError);
  });
});

/** A copy of undici's llhttp constants beside a client-h1.js of `source`, in a temp folder. */
function fakeUndici(source: string) {
  const dir = join(tempDir(), 'node_modules/undici/lib');
  mkdirSync(join(dir, 'dispatcher'), { recursive: true });
  mkdirSync(join(dir, 'llhttp'));
  for (const name of ['constants.js', 'utils.js']) {
    copyFileSync(join(ROOT, 'node_modules/undici/lib/llhttp', name), join(dir, 'llhttp', name));
  }
  writeFileSync(join(dir, 'dispatcher/client-h1.js'), source);
  return dir;
}

describe('llhttpEnumsOnly', () => {
  it('bundles undici’s HTTP/1 client with a stand-in for llhttp’s constants', async () => {
    const result = await build({
      stdin: {
        contents: "module.exports = require('undici/lib/dispatcher/client-h1.js')",
        resolveDir: ROOT,
        sourcefile: 'entry.cjs',
      },
      bundle: true,
      platform: 'node',
      write: false,
      metafile: true,
      logLevel: 'silent',
      plugins: [llhttpEnumsOnly()],
    });
    const inputs = Object.keys(result.metafile.inputs);
    // The stand-in is bundled, and neither llhttp's module nor the helpers it requires.
    expect(inputs.filter((input) => /llhttp\/(constants|utils)\.js$/.test(input))).toEqual([
      'llhttp-enums:undici/lib/llhttp/constants.js',
    ]);
  });

  it('gives the client the two enums it reads, equal to llhttp’s own', async () => {
    const real = createRequire(join(ROOT, 'entry.cjs'))('undici/lib/llhttp/constants.js');
    const dir = fakeUndici(
      "const constants = require('../llhttp/constants.js')\nmodule.exports = { ERROR: constants.ERROR, TYPE: constants.TYPE }\n",
    );
    const exports = await bundled(
      "module.exports = require('./dispatcher/client-h1.js')",
      [llhttpEnumsOnly()],
      dir,
    );
    expect(exports).toEqual({ ERROR: real.ERROR, TYPE: real.TYPE });
    expect(real.ERROR.PAUSED_UPGRADE).toBe(22);
  });

  it('fails the build when the client reads more of them (a newer undici)', async () => {
    const dir = fakeUndici(
      "const constants = require('../llhttp/constants.js')\nmodule.exports = [constants.ERROR.OK, constants.METHODS.GET]\n",
    );
    await expect(
      bundled("require('./dispatcher/client-h1.js')", [llhttpEnumsOnly()], dir),
    ).rejects.toThrow(
      "undici's client-h1.js uses more of llhttp's constants than ERROR and TYPE: extend llhttpEnumsOnly",
    );
  });
});

describe('lazyHttpInUndici', () => {
  /** Runs `contents` (CommonJS, undici's files bundled with the plugin) in a new Node process,
   * which prints JSON; returns it. */
  const runBundled = async (contents: string) => {
    const result = await build({
      stdin: { contents, resolveDir: ROOT, sourcefile: 'entry.cjs' },
      bundle: true,
      platform: 'node',
      format: 'cjs',
      write: false,
      logLevel: 'silent',
      plugins: [lazyHttp2(), llhttpEnumsOnly(), lazyHttpInUndici()],
    });
    const file = join(tempDir(), 'entry.cjs');
    writeFileSync(file, result.outputFiles[0]?.text ?? '');
    return JSON.parse(execFileSync(process.execPath, [file], { encoding: 'utf8' }));
  };
  const HTTP_LOADED = "process.moduleLoadList.includes('NativeModule http')";

  it('loads node:http only for a client made without maxHeaderSize, which gets Node’s', async () => {
    const seen = await runBundled(`
const Client = require('undici/lib/dispatcher/client.js');
require('undici/lib/core/util.js');
const size = (client) => client[Object.getOwnPropertySymbols(client).find((s) => s.description === 'max headers size')];
const atLoad = ${HTTP_LOADED};
const given = size(new Client('http://127.0.0.1:9', { maxHeaderSize: 1000 }));
const afterGiven = ${HTTP_LOADED};
const byDefault = size(new Client('http://127.0.0.1:9'));
console.log(JSON.stringify({ atLoad, given, afterGiven, byDefault, node: require('node:http').maxHeaderSize }));
`);
    expect(seen).toEqual({
      atLoad: false,
      given: 1000,
      afterGiven: false,
      byDefault: 16384,
      node: 16384,
    });
  });

  it('still takes the socket from an IncomingMessage it destroys, and only from one', async () => {
    const seen = await runBundled(`
const { destroy } = require('undici/lib/core/util.js');
const { Readable } = require('node:stream');
const plain = new Readable({ read() {} });
plain.socket = 'kept';
destroy(plain);
const afterPlain = ${HTTP_LOADED};
const { IncomingMessage } = require('node:http');
const message = new IncomingMessage(null);
message.socket = 'taken';
destroy(message);
console.log(JSON.stringify({ afterPlain, plain: plain.socket, message: message.socket, destroyed: message.destroyed }));
`);
    expect(seen).toEqual({ afterPlain: false, plain: 'kept', message: null, destroyed: true });
  });

  it('fails the build when undici’s code is not what it edits (a newer undici)', async () => {
    const dir = fakePackageFile(
      'undici/lib/core/util.js',
      "const { IncomingMessage } = require('node:http')\nmodule.exports = (s) => s instanceof IncomingMessage\n",
    );
    await expect(bundled("require('./util.js')", [lazyHttpInUndici()], dir)).rejects.toThrow(
      /undici\/lib\/core\/util\.js is not the code lazyHttpInUndici edits/,
    );
  });

  it('fails the build when undici uses node:http elsewhere in a file it edits', async () => {
    const source = `const http = require('node:http')
const getDefaultNodeMaxHeaderSize = http &&
  http.maxHeaderSize &&
  Number.isInteger(http.maxHeaderSize) &&
  http.maxHeaderSize > 0
  ? () => http.maxHeaderSize
  : () => { throw new InvalidArgumentError('http module not available or http.maxHeaderSize invalid') }
module.exports = [getDefaultNodeMaxHeaderSize, http.STATUS_CODES]
`;
    const dir = fakePackageFile('undici/lib/dispatcher/client.js', source);
    await expect(bundled("require('./client.js')", [lazyHttpInUndici()], dir)).rejects.toThrow(
      'undici/lib/dispatcher/client.js uses node:http elsewhere too: extend lazyHttpInUndici',
    );
  });
});

describe('llhttpWasmFiles', () => {
  const undiciRequire = createRequire(join(ROOT, 'entry.cjs'));

  it('writes each build of llhttp as the bytes undici’s module holds', () => {
    const dir = tempDir();
    writeLlhttpWasm(dir);
    for (const { module, file } of LLHTTP_WASM) {
      const bytes = readFileSync(join(dir, file));
      expect(bytes.equals(undiciRequire(`undici/lib/llhttp/${module}`))).toBe(true);
      // A WebAssembly binary (magic number and version 1), not the base64 text.
      expect([...bytes.subarray(0, 8)]).toEqual([0, 0x61, 0x73, 0x6d, 1, 0, 0, 0]);
    }
  });

  it('has the HTTP/1 client read them from the bundle’s folder, not bundle them', async () => {
    const dir = join(tempDir(), 'node_modules/undici/lib/dispatcher');
    mkdirSync(dir, { recursive: true });
    writeFileSync(
      join(dir, 'client-h1.js'),
      "module.exports = [require('../llhttp/llhttp_simd-wasm.js'), require('../llhttp/llhttp-wasm.js')]\n",
    );
    const out = tempDir();
    const result = await build({
      entryPoints: [join(dir, 'client-h1.js')],
      bundle: true,
      platform: 'node',
      format: 'cjs',
      outfile: join(out, 'bundle.cjs'),
      metafile: true,
      logLevel: 'silent',
      plugins: [llhttpWasmFiles()],
    });
    expect(Object.keys(result.metafile.inputs).filter((input) => input.includes('llhttp'))).toEqual(
      [
        'llhttp-wasm:undici/lib/llhttp/llhttp_simd-wasm.js',
        'llhttp-wasm:undici/lib/llhttp/llhttp-wasm.js',
      ],
    );
    const load = () => createRequire(join(out, 'entry.cjs'))('./bundle.cjs') as Buffer[];
    // Nothing beside the bundle yet: it reads from its own folder, and from nowhere else.
    expect(load).toThrow(
      expect.objectContaining({ code: 'ENOENT', path: join(out, 'llhttp_simd.wasm') }),
    );
    writeLlhttpWasm(out);
    const [simd, plain] = load().map((bytes) => Buffer.from(bytes));
    expect(simd?.equals(undiciRequire('undici/lib/llhttp/llhttp_simd-wasm.js'))).toBe(true);
    expect(plain?.equals(undiciRequire('undici/lib/llhttp/llhttp-wasm.js'))).toBe(true);
  });
});

describe('asciiFirstInCommander', () => {
  const FLAGS = [
    '--limit <n>',
    '-p, --profile <name>',
    '--json',
    '--file <names...>',
    '-x [values...]',
    '--x <é...>',
    '--split <value,...>',
    '--dots <...>',
    '--tail <name...',
  ];

  it('tells variadic options as commander does', async () => {
    const { Option } = (await bundled("module.exports = require('commander');", [
      asciiFirstInCommander(),
    ])) as { Option: new (flags: string) => { variadic: boolean } };
    const { Option: Real } = createRequire(join(ROOT, 'entry.cjs'))('commander') as {
      Option: new (flags: string) => { variadic: boolean };
    };
    const seen = FLAGS.map((flags) => new Option(flags).variadic);
    expect(seen).toEqual(FLAGS.map((flags) => new Real(flags).variadic));
    expect(seen).toEqual([false, false, false, true, true, true, false, false, false]);
    // And the Unicode class is asked only after the plain test.
    const { outputFiles } = await build({
      entryPoints: [join(ROOT, 'node_modules/commander/lib/option.js')],
      bundle: true,
      platform: 'node',
      write: false,
      logLevel: 'silent',
      plugins: [asciiFirstInCommander()],
    });
    expect(outputFiles[0]?.text).toContain(
      'this.variadic = /\\.\\.\\.[>\\]]$/.test(flags) && /\\p{ID_Continue}\\.\\.\\.[>\\]]$/u.test(flags);',
    );
  });

  it('fails the build when commander’s option.js is not what it edits', async () => {
    const dir = fakePackageFile(
      'commander/lib/option.js',
      'exports.variadic = (flags) => /\\p{L}\\.\\.\\.[>\\]]$/u.test(flags);\n',
    );
    await expect(bundled("require('./option.js')", [asciiFirstInCommander()], dir)).rejects.toThrow(
      /commander\/lib\/option\.js is not the code asciiFirstInCommander edits/,
    );
  });
});

describe('lazyHeaderTree', () => {
  type Util = { headerNameToString(name: Buffer): string };
  const NAMES = ['Content-Type', 'content-length', 'DATE', 'X-Request-Id', 'x-\u00fcml\u00c4ut'];

  it('lower-cases header names as undici does, before and after the tree is built', async () => {
    const { util, tree } = (await bundled(
      "module.exports = { util: require('undici/lib/core/util.js'), tree: require('undici/lib/core/tree.js').tree };",
      [lazyHttpInUndici(), lazyHeaderTree()],
    )) as { util: Util; tree: { lookup(name: Buffer): string | null } };
    const real = createRequire(join(ROOT, 'entry.cjs'))('undici/lib/core/util.js') as Util;
    const names = NAMES.map((name) => Buffer.from(name, 'latin1'));
    const expected = names.map((name) => real.headerNameToString(name));
    expect(expected).toEqual([
      'content-type',
      'content-length',
      'date',
      'x-request-id',
      'x-\u00fcml\u00e4ut',
    ]);
    expect(names.map((name) => util.headerNameToString(name))).toEqual(expected);
    // Not built yet: a known name is not found in it (its callers lower-case the text).
    expect(tree.lookup(Buffer.from('date'))).toBeNull();
    for (let i = 0; i < 256; i += 1) util.headerNameToString(Buffer.from('Date'));
    expect(tree.lookup(Buffer.from('DATE'))).toBe('date');
    expect(names.map((name) => util.headerNameToString(name))).toEqual(expected);
  });

  /** A fake undici: `files` under lib/, beside a copy of its tree.js and constants.js;
   * returns lib/core. */
  const withTree = (files: Record<string, string>) => {
    const lib = join(tempDir(), 'node_modules/undici/lib');
    for (const [path, source] of Object.entries(files)) {
      mkdirSync(dirname(join(lib, path)), { recursive: true });
      writeFileSync(join(lib, path), source);
    }
    for (const name of ['tree.js', 'constants.js']) {
      copyFileSync(join(ROOT, 'node_modules/undici/lib/core', name), join(lib, 'core', name));
    }
    return join(lib, 'core');
  };
  const FALLBACK = "tree.lookup(value) ?? value.toString('latin1').toLowerCase()";

  it('fails the build when a lookup of util.js takes no fallback, whatever its argument', async () => {
    const core = withTree({
      'core/util.js': `const { tree } = require('./tree')\nconst a = (value) => ${FALLBACK}\nconst b = (key) => tree.lookup(key)\nmodule.exports = { a, b }\n`,
    });
    await expect(bundled("require('./util.js')", [lazyHeaderTree()], core)).rejects.toThrow(
      'core/util.js does not fall back to the lower-cased name at each lookup',
    );
  });

  it('fails the build when another module uses the tree, from any folder', async () => {
    const core = withTree({
      'core/util.js': `const { tree } = require('./tree')\nmodule.exports = (value) => ${FALLBACK}\n`,
      'web/fetch/x.js': "const { tree } = require('../../core/tree.js')\nmodule.exports = tree\n",
    });
    await expect(bundled("require('./util.js')", [lazyHeaderTree()], core)).rejects.toThrow(
      'the tree has other users: core/util.js, web/fetch/x.js',
    );
  });

  it('fails the build when undici’s util.js does not fall back to the text', async () => {
    const dir = fakePackageFile(
      'undici/lib/core/util.js',
      "const { tree } = require('./tree')\nmodule.exports = (value) => tree.lookup(value)\n",
    );
    for (const name of ['tree.js', 'constants.js']) {
      copyFileSync(join(ROOT, 'node_modules/undici/lib/core', name), join(dir, name));
    }
    await expect(bundled("require('./util.js')", [lazyHeaderTree()], dir)).rejects.toThrow(
      'undici/lib/core/tree.js: core/util.js does not fall back to the lower-cased name at each lookup: update lazyHeaderTree',
    );
  });
});
