// Types of scripts/homebrew.js for its test (test/package/release.test.ts).
interface Tarball {
  file: string;
  sha256: string;
}
export function homebrewFormula(
  pkg: { version: string; description: string; license: string; repository: { url: string } },
  tarballs: { intel: Tarball; arm: Tarball },
): string;
