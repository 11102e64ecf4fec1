// THIRD_PARTY_NOTICES: the licence of every package esbuild actually put into a bundle, read
// from the build's metafile (so a dependency that stops being bundled drops out, and a new one
// comes in with no list to keep). Many packages carry their licence only in a LICENSE file,
// not in a comment esbuild could keep, so the file's text is copied here.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { LLHTTP_WASM } from './esbuild-plugins.js';

const LICENCE_FILE = /^(licen[cs]e|copying)(\W.*)?$/i;

/** llhttp's licence (github.com/nodejs/llhttp, LICENSE-MIT): undici ships llhttp's WebAssembly
 * builds, which dist/ has as files of their own, without llhttp's licence file. */
const LLHTTP_LICENCE = `This software is licensed under the MIT License.

Copyright Fedor Indutny, 2018.

Permission is hereby granted, free of charge, to any person obtaining a
copy of this software and associated documentation files (the
"Software"), to deal in the Software without restriction, including
without limitation the rights to use, copy, modify, merge, publish,
distribute, sublicense, and/or sell copies of the Software, and to permit
persons to whom the Software is furnished to do so, subject to the
following conditions:

The above copyright notice and this permission notice shall be included
in all copies or substantial portions of the Software.

THE SOFTWARE IS PROVIDED "AS IS", WITHOUT WARRANTY OF ANY KIND, EXPRESS
OR IMPLIED, INCLUDING BUT NOT LIMITED TO THE WARRANTIES OF
MERCHANTABILITY, FITNESS FOR A PARTICULAR PURPOSE AND NONINFRINGEMENT. IN
NO EVENT SHALL THE AUTHORS OR COPYRIGHT HOLDERS BE LIABLE FOR ANY CLAIM,
DAMAGES OR OTHER LIABILITY, WHETHER IN AN ACTION OF CONTRACT, TORT OR
OTHERWISE, ARISING FROM, OUT OF OR IN CONNECTION WITH THE SOFTWARE OR THE
USE OR OTHER DEALINGS IN THE SOFTWARE.`;

/** The package folders (relative, e.g. node_modules/@colors/colors) the bundle's inputs come from. */
export function bundledPackages(metafile) {
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

/**
 * llhttp, when the build read its WebAssembly from files (scripts/esbuild-plugins.js,
 * llhttpWasmFiles): the files, and the undici whose lib/llhttp they come from (undici does not
 * say which llhttp version it built them from).
 */
export function shippedLlhttp(metafile, root) {
  if (!Object.keys(metafile.inputs).some((input) => input.startsWith('llhttp-wasm:'))) return;
  const undici = JSON.parse(readFileSync(join(root, 'node_modules/undici/package.json'), 'utf8'));
  return { files: LLHTTP_WASM.map(({ file }) => file), undici: undici.version };
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
  const llhttp = shippedLlhttp(metafile, root);
  const wasm = llhttp?.files.join(', ');
  if (llhttp) {
    sections.push({
      name: `llhttp (${wasm})`,
      text: `llhttp, the WebAssembly builds ${wasm} from undici ${llhttp.undici}'s lib/llhttp (MIT)\n\n${LLHTTP_LICENCE}\n`,
    });
  }
  const rule = `\n${'='.repeat(78)}\n\n`;
  const head =
    `${title} includes the following third-party packages, bundled into its code` +
    `${llhttp ? `\n(llhttp: its WebAssembly builds, the files ${wasm} beside the code)` : ''}.\n` +
    `Their licences follow.\n\n${sections.map(({ name }) => `- ${name}`).join('\n')}\n`;
  writeFileSync(file, [head, ...sections.map(({ text }) => text)].join(rule));
}
