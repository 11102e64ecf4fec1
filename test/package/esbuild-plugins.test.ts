import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { build, type Plugin } from 'esbuild';
import { describe, expect, it } from 'vitest';
import {
  LLHTTP_WASM,
  lazyAssert,
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
