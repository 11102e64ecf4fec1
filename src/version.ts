import { readFileSync } from 'node:fs';

/** The package's version, read from package.json (beside dist/ and src/ alike). */
export function version(): string {
  const pkg = readFileSync(new URL('../package.json', import.meta.url), 'utf8');
  return (JSON.parse(pkg) as { version: string }).version;
}
