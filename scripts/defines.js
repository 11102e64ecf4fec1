// What esbuild's `define` inlines into every build of src/ (the bundle, the single
// executable, the generators): the version, so that nothing reads package.json at run time.
import { readFileSync } from 'node:fs';

export function defines() {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
  return { __STORE_VERSION__: JSON.stringify(pkg.version) };
}
