// The Homebrew formula of a release (store.rb): the Linux tarballs, by URL of the GitHub release
// (package.json's repository) and checksum. Linux only: the release has no macOS binaries yet
// (docs/release.md says what a macOS build machine needs).

/** Ruby's double-quoted string of `text` (no interpolation). */
function quote(text) {
  return JSON.stringify(text).replace(/#/g, '\\#');
}

/**
 * The formula's text. `tarballs`: { intel, arm }, each { file, sha256 }; `pkg`: package.json.
 */
export function homebrewFormula(pkg, tarballs) {
  const repository = pkg.repository.url.replace(/^git\+/, '').replace(/\.git$/, '');
  const url = (file) => quote(`${repository}/releases/download/v${pkg.version}/${file}`);
  const arch = (name, { file, sha256 }) =>
    `    ${name} do\n      url ${url(file)}\n      sha256 ${quote(sha256)}\n    end\n`;
  return `# Written by scripts/release.js for store ${pkg.version}: not to be edited by hand.
class Store < Formula
  desc ${quote(pkg.description)}
  homepage ${quote(repository)}
  version ${quote(pkg.version)}
  license ${quote(pkg.license)}

  depends_on :linux

  on_linux do
${arch('on_intel', tarballs.intel)}${arch('on_arm', tarballs.arm)}  end

  def install
    bin.install "bin/store"
    man1.install "share/man/man1/store.1"
    bash_completion.install "share/bash-completion/completions/store"
    zsh_completion.install "share/zsh/site-functions/_store"
    fish_completion.install "share/fish/vendor_completions.d/store.fish"
    prefix.install "LICENSE", "LICENSE.node", "THIRD_PARTY_NOTICES"
  end

  test do
    assert_equal "${pkg.version}\\n", shell_output("#{bin}/store --version")
  end
end
`;
}
