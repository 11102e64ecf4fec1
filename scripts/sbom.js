// The release's SBOM (CycloneDX 1.5 JSON): every package esbuild bundled into dist/, read from
// the build's metafile (dist/metafile.json) as the notices are, with its version and licence;
// llhttp's WebAssembly shipped beside it; the keyring library npm installs beside the package;
// and the Node each single executable carries. Same inputs, same bytes: no random serial number,
// the time is SOURCE_DATE_EPOCH's.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { bundledPackages, shippedLlhttp } from './notices.js';

/** A package URL for an npm package (a scope's @ is %40). */
function npmPurl(name, version) {
  return `pkg:npm/${name.replace(/^@/, '%40')}@${version}`;
}

/** CycloneDX's licence choice for an npm `license` field: an SPDX id, or an expression. */
function licences(license) {
  if (typeof license !== 'string' || license === '') return undefined;
  return /^[A-Za-z0-9.+-]+$/.test(license)
    ? [{ license: { id: license } }]
    : [{ expression: license }];
}

/** One npm package as a component, with `group` for a scoped name, as CycloneDX has it. */
function npmComponent(pkg, extra = {}) {
  const scoped = /^(@[^/]+)\/(.+)$/.exec(pkg.name);
  const purl = npmPurl(pkg.name, pkg.version);
  return {
    type: 'library',
    'bom-ref': purl,
    ...(scoped ? { group: scoped[1], name: scoped[2] } : { name: pkg.name }),
    version: pkg.version,
    licenses: licences(pkg.license),
    purl,
    ...extra,
  };
}

/** `properties` saying which of the release's files hold a component. */
function inFiles(files) {
  return { properties: files.map((file) => ({ name: 'store:file', value: file })) };
}

/**
 * The SBOM of a release. `nodes`: for each binary, the registry package its node came from
 * ({ name, version, license, integrity }) and the release files that carry it; `npmFiles`: the
 * files that carry the bundle only (the npm tarball); `binaryFiles`: all that carry the binaries.
 */
export function makeSbom({ root, epoch, nodes, npmFiles, binaryFiles }) {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const metafile = JSON.parse(readFileSync(join(root, 'dist', 'metafile.json'), 'utf8'));
  const everywhere = inFiles([...npmFiles, ...binaryFiles]);
  const bundled = bundledPackages(metafile).map((folder) =>
    npmComponent(JSON.parse(readFileSync(join(root, folder, 'package.json'), 'utf8')), everywhere),
  );
  const llhttp = shippedLlhttp(metafile, root);
  if (llhttp) {
    bundled.push({
      type: 'library',
      'bom-ref': 'llhttp',
      name: 'llhttp',
      description: `WebAssembly builds ${llhttp.files.join(', ')} from undici ${llhttp.undici}'s lib/llhttp`,
      licenses: [{ license: { id: 'MIT' } }],
      externalReferences: [{ type: 'vcs', url: 'https://github.com/nodejs/llhttp' }],
      ...everywhere,
    });
  }
  // Installed by npm beside the package, where its platform has a build (not in the binaries).
  const optional = Object.keys(pkg.optionalDependencies ?? {}).map((name) =>
    npmComponent(
      JSON.parse(readFileSync(join(root, 'node_modules', name, 'package.json'), 'utf8')),
      {
        scope: 'optional',
        ...inFiles(npmFiles),
      },
    ),
  );
  const runtimes = nodes.map(({ name, version, license, integrity, files }) => {
    const [algorithm, base64] = integrity.split('-');
    const purl = npmPurl(name, version);
    return {
      type: 'platform',
      'bom-ref': purl,
      name,
      version,
      description: `Node.js ${version}, embedded in the single executable (its LICENSE is LICENSE.node)`,
      licenses: licences(license),
      hashes: [
        {
          alg: algorithm.toUpperCase().replace('SHA', 'SHA-'),
          content: Buffer.from(base64, 'base64').toString('hex'),
        },
      ],
      purl,
      ...inFiles(files),
    };
  });
  const app = npmPurl(pkg.name, pkg.version);
  const components = [...bundled, ...optional, ...runtimes];
  const body = {
    bomFormat: 'CycloneDX',
    specVersion: '1.5',
    version: 1,
    metadata: {
      timestamp: new Date(Number(epoch) * 1000).toISOString().replace('.000Z', 'Z'),
      component: {
        ...npmComponent(pkg),
        type: 'application',
        description: pkg.description,
      },
    },
    components,
    dependencies: [
      { ref: app, dependsOn: components.map((component) => component['bom-ref']) },
      ...components.map((component) => ({ ref: component['bom-ref'], dependsOn: [] })),
    ],
  };
  // A serial number of the content (UUID form, version 5's bits), not a random one.
  const hex = createHash('sha256').update(JSON.stringify(body)).digest('hex');
  const variant = ((Number.parseInt(hex[16], 16) & 3) | 8).toString(16);
  const uuid = `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${variant}${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
  const { bomFormat, specVersion } = body;
  return { bomFormat, specVersion, serialNumber: `urn:uuid:${uuid}`, ...body };
}
