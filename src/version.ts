// The package's version, inlined at build time: esbuild's `define` (scripts/build.js) and
// vitest's (vitest.config.ts) replace the name below with package.json's version, so no file
// is read at run time (a single-file build has no package.json beside it).
declare const __STORE_VERSION__: string;

export function version(): string {
  return __STORE_VERSION__;
}
