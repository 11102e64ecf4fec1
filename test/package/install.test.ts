// The package as a user gets it: `npm pack`, then a global install of the tarball into a
// temporary prefix with no network (it has no dependencies to fetch), then the installed
// `store` run as a process. dist/ is the one `npm test` just built: packing with
// --ignore-scripts keeps the prepack build from rewriting dist/ under the other tests.
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { BIN, collect, killAll, processEnv, startSandbox } from '../helpers/process.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
let work: string;
let tarball: string;
let prefix: string;
let packed: string[];
/** The pinned Node first on PATH, as for a user whose `node` is 24; npm's own config left out. */
let env: NodeJS.ProcessEnv;

function npm(args: string[], cwd = work): string {
  return execFileSync('npm', args, {
    cwd,
    env,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}

async function run(command: string, args: string[], extra: NodeJS.ProcessEnv = {}) {
  const child = spawn(command, args, { cwd: work, env: { ...env, ...extra } });
  return collect(child);
}

beforeAll(() => {
  work = mkdtempSync(join(tmpdir(), 'store-package-'));
  prefix = join(work, 'prefix');
  env = processEnv({
    PATH: `${dirname(process.execPath)}:${process.env.PATH}`,
    HOME: work,
    npm_config_cache: join(work, 'npm-cache'),
    npm_config_update_notifier: 'false',
    npm_config_fund: 'false',
    npm_config_audit: 'false',
  });
  const [info] = JSON.parse(
    npm(['pack', '--ignore-scripts', '--json', '--pack-destination', work, ROOT]),
  ) as { filename: string; files: { path: string }[] }[];
  tarball = join(work, info?.filename ?? '');
  packed = (info?.files ?? []).map((file) => file.path).sort();
});

afterAll(() => rmSync(work, { recursive: true, force: true }));
afterEach(killAll);

describe('the packed tarball', () => {
  it('is @animal-store/cli and holds the program, its licences, completions and man page', () => {
    expect(tarball.endsWith('animal-store-cli-0.1.0.tgz')).toBe(true);
    const top = [...new Set(packed.map((path) => path.split('/')[0]))];
    expect(top).toEqual([
      'LICENSE',
      'README.md',
      'bin',
      'completions',
      'dist',
      'man',
      'package.json',
    ]);
    expect(packed).toContain('bin/store.js');
    // It says bin/store.js is CommonJS (the package is ES modules): without it the shim fails.
    expect(packed).toContain('bin/package.json');
    // The program and the files it requires when needed (a table, a config write, a proxy, a
    // bulk add's pool, `store mcp`, the HTTP/1 parser).
    for (const file of [
      'store.cjs',
      'table.cjs',
      'conf.cjs',
      'undici.cjs',
      'agent.cjs',
      'mcp.cjs',
      'llhttp_simd.wasm',
      'llhttp.wasm',
      'THIRD_PARTY_NOTICES',
    ]) {
      expect(packed).toContain(`dist/${file}`);
    }
    for (const file of ['store.bash', '_store', 'store.fish']) {
      expect(packed).toContain(`completions/${file}`);
    }
    expect(packed).toContain('man/store.1');
    // Source maps (half the download) are a release artefact of their own (docs/release.md),
    // and what the build bundled is the release's SBOM.
    expect(
      packed.filter((path) => path.endsWith('.map') || path.endsWith('metafile.json')),
    ).toEqual([]);
  });

  it('carries the licence of each bundled package, copied from its LICENSE file', () => {
    const notices = readFileSync(join(ROOT, 'dist', 'THIRD_PARTY_NOTICES'), 'utf8');
    const head = notices.slice(0, notices.indexOf('\n====='));
    const listed = [...head.matchAll(/^- (\S+)$/gm)].map((match) => match[1]);
    // The parser, the HTTP client and the schemas: bundled whatever else changes.
    for (const direct of ['commander', 'undici', 'zod']) {
      expect(listed).toContain(direct);
    }
    // llhttp's WebAssembly, files of their own in dist/, named with llhttp's licence.
    expect(head).toContain('\n- llhttp (llhttp_simd.wasm, llhttp.wasm)\n');
    expect(notices).toMatch(
      /\nllhttp, the WebAssembly builds llhttp_simd\.wasm, llhttp\.wasm from undici \d+\.\d+\.\d+'s lib\/llhttp \(MIT\)\n\nThis software is licensed under the MIT License\.\n\nCopyright Fedor Indutny, 2018\./,
    );
    for (const name of listed) {
      const dir = join(ROOT, 'node_modules', name ?? '');
      const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
      const file = readdirSync(dir).find((entry) => /^licen[cs]e/i.test(entry)) ?? '';
      expect(notices).toContain(`\n${name} ${pkg.version} (${pkg.license})\n\n`);
      expect(notices).toContain(readFileSync(join(dir, file), 'utf8').trim());
    }
  });

  it('installs globally as exactly one package, offline, with no install-script warning', async () => {
    const install = await run('npm', ['install', '-g', '--prefix', prefix, '--offline', tarball]);
    expect(install.code).toBe(0);
    expect(install.stdout).toMatch(/^added 1 package in /m);
    expect(install.stderr).not.toMatch(/install-scripts|allowScripts/);
    const modules = join(prefix, 'lib', 'node_modules');
    expect(readdirSync(modules)).toEqual(['@animal-store']);
    expect(readdirSync(join(modules, '@animal-store'))).toEqual(['cli']);
    // No node_modules of its own: nothing else was installed under it.
    expect(readdirSync(join(modules, '@animal-store', 'cli'))).not.toContain('node_modules');

    // npm links the page declared in `man` where `man` looks for it.
    const page = join(prefix, 'share', 'man', 'man1', 'store.1');
    expect(readFileSync(page, 'utf8')).toBe(readFileSync(join(ROOT, 'man', 'store.1'), 'utf8'));

    const store = join(prefix, 'bin', 'store');
    expect(await run(store, ['--version'])).toEqual({
      code: 0,
      signal: null,
      stdout: '0.1.0\n',
      stderr: '',
    });
    const help = await run(store, ['help']);
    const fromRepo = await run(process.execPath, [BIN, 'help']);
    expect(help).toEqual({ ...fromRepo, code: 0 });
    expect(help.stdout).toMatch(/^Usage: store \[options\] \[command\]\n/);
    // A config write (dist/conf.cjs) works from the install too.
    const config = join(work, 'config');
    expect(await run(store, ['profile', 'use', 'staging'], { STORE_CONFIG_DIR: config })).toEqual({
      code: 0,
      signal: null,
      stdout: '',
      stderr: 'Made staging the current profile\n',
    });
    expect(JSON.parse(readFileSync(join(config, 'config.json'), 'utf8'))).toEqual({
      currentProfile: 'staging',
    });
    // The keyring library is an optional dependency, not in the offline cache: the install
    // works without it, and a login keeps the key in the file and says so.
    const login = spawnSync(store, ['auth', 'login', '--with-key', '--no-verify'], {
      env: { ...env, STORE_CONFIG_DIR: config },
      input: 'packed-key-4321\n',
      encoding: 'utf8',
    });
    expect(login.stderr).toBe(
      `warning: the system keyring cannot be used (no keyring library for ${process.platform}-${process.arch} is installed); the key is stored in plain text in ${join(config, 'config.json')}\n` +
        'Saved key ****4321 for profile staging without checking it\n',
    );
    expect(JSON.parse(readFileSync(join(config, 'config.json'), 'utf8'))).toEqual({
      currentProfile: 'staging',
      profiles: { staging: { apiKey: 'packed-key-4321' } },
    });
  });

  it('runs with npx from the tarball against a sandbox', async () => {
    const sandbox = await startSandbox(['--seed', '2']);
    const listed = await run('npx', ['--yes', '--offline', `file:${tarball}`, 'pets', 'list'], {
      ...sandbox.env(),
      PATH: env.PATH,
    });
    expect(listed).toEqual({
      code: 0,
      signal: null,
      stdout: 'ID\tNAME\tCATEGORY\tSTATUS\n1\tRex\t1\tavailable\n2\tBella\t2\tpending\n',
      stderr: '',
    });
  });
});
