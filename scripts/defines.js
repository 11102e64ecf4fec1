// What esbuild's `define` inlines into every build of src/ (the bundle, the single
// executable, the generators): the version, so that nothing reads package.json at run time.
import { readFileSync } from 'node:fs';

export function defines() {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  return {
    __STORE_VERSION__: JSON.stringify(pkg.version),
    // undici's own name for "bundled as Node's core bundles it": its HTTP/1 client then keeps
    // to llhttp and leaves out Milo, an experimental parser (two WebAssembly builds, 150 KB of
    // the bundle) used only when asked for.
    esbuildDetection: 'true',
  };
}
