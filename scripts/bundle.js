// What every shipped bundle of src/ shares (dist/, which the single executable carries):
// esbuild's settings, and the notices of the packages it bundled written beside it.
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { defines } from './defines.js';
import {
  builtinsWithoutNamespaces,
  lazyAssert,
  lazyHttp2,
  llhttpWasmFiles,
} from './esbuild-plugins.js';
import { writeNotices } from './notices.js';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Runs one esbuild build per `options` over the shared settings; writes the third-party
 * notices of everything they bundled to `notices`. Returns their metafiles' inputs, merged. */
export async function bundle(builds, notices) {
  const inputs = {};
  for (const options of builds) {
    const { metafile } = await build({
      absWorkingDir: root,
      bundle: true,
      platform: 'node',
      define: defines(),
      // Fully minified: less to read and a smaller code cache to load at every start (short
      // names too). Under --debug,
      // Node maps stack frames back to src/ files and lines through the source map (and most
      // function names; a method's class stays minified). No code may depend on a function's
      // or class's name: our errors name themselves, main.ts names commander's.
      minifyWhitespace: true,
      minifySyntax: true,
      minifyIdentifiers: true,
      // The few licence comments in the code (e.g. code undici took from ws) stay with it.
      legalComments: 'eof',
      metafile: true,
      logLevel: 'warning',
      // A name imported from a module that does not export it is an error, not undefined at
      // run time (a built-in's export missing from scripts/esbuild-plugins.js's stand-ins).
      logOverride: { 'import-is-undefined': 'error' },
      ...options,
      plugins: [
        lazyHttp2(),
        lazyAssert(),
        llhttpWasmFiles(),
        builtinsWithoutNamespaces(),
        ...(options.plugins ?? []),
      ],
    });
    Object.assign(inputs, metafile.inputs);
  }
  writeNotices({ inputs }, root, notices);
  return { inputs };
}
