// THIRD_PARTY_NOTICES: the licence of every package esbuild actually put into a bundle, read
// from the build's metafile (so a dependency that stops being bundled drops out, and a new one
// comes in with no list to keep). Many packages carry their licence only in a LICENSE file,
// not in a comment esbuild could keep, so the file's text is copied here.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const LICENCE_FILE = /^(licen[cs]e|copying)(\W.*)?$/i;

/** The package folders (relative, e.g. node_modules/@colors/colors) the bundle's inputs come from. */
function bundledPackages(metafile) {
  const folders = new Set();
  for (const input of Object.keys(metafile.inputs)) {
    // Modules made by the build's plugins (scripts/esbuild-plugins.js) are no package's code.
    if (/^[\w-]+:/.test(input)) continue;
    // The last node_modules/ in the path: a nested copy is a package of its own.
    const match = input.match(/^(.*node_modules\/(?:@[^/]+\/)?[^/]+)\//);
    if (match) folders.add(match[1]);
  }
  return [...folders];
}

/** Writes the notices of what `metafile` (from esbuild, built in `root`) bundled into `file`. */
export function writeNotices(metafile, root, file) {
  const title = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).name;
  const sections = bundledPackages(metafile).map((folder) => {
    const dir = join(root, folder);
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
    const licences = readdirSync(dir).filter((name) => LICENCE_FILE.test(name));
    if (licences.length === 0) {
      // Shipping its code without its licence is not an option: the build stops.
      throw new Error(`${folder} has no LICENSE file: add its licence text to scripts/notices.js`);
    }
    const texts = licences.sort().map((name) => readFileSync(join(dir, name), 'utf8').trim());
    return {
      name: pkg.name,
      text: `${pkg.name} ${pkg.version} (${pkg.license})\n\n${texts.join('\n\n')}\n`,
    };
  });
  sections.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  const rule = `\n${'='.repeat(78)}\n\n`;
  const head =
    `${title} includes the following third-party packages, bundled into its code.\n` +
    `Their licences follow.\n\n${sections.map(({ name }) => `- ${name}`).join('\n')}\n`;
  writeFileSync(file, [head, ...sections.map(({ text }) => text)].join(rule));
}
