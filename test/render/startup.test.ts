// --json and tab-separated output never load chalk or the table renderer: they are in a file of
// their own (dist/table.cjs), read only when a table (or colour) is drawn. Nor do they load
// Node's own modules that only other paths use (scripts/esbuild-plugins.js says what each cost).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { faultServer, reply } from '../helpers/fault-server.js';
import { BIN, modulesLoaded, processEnv } from '../helpers/process.js';

const ROOT = join(BIN, '../..');
const PETS = '[{"id":1,"name":"Rex","categoryId":2,"status":"available"}]';
// http2 and tls (an https request's, not an http one's), crypto (a config write's lock),
// fs/promises and readline (reading a file, stdin as a file stream), child_process (commander's
// executable subcommands), worker_threads (util's), assert, module (with its source-map code:
// bin/store.js gives the program its own require, not one from module.createRequire), os (HOME
// is the home folder; the host name and the user database are for config writes and their
// messages), timers/promises (a retry's or a lock's wait).
const NOT_FOR_A_REQUEST = [
  'assert',
  'os',
  'timers/promises',
  'module',
  'http2',
  'tls',
  'crypto',
  'fs/promises',
  'readline',
  'child_process',
  'worker_threads',
];

/** The files that ran and name `builtin` (`require('node:tls')`, `from 'tls'`): where to look
 * when the start-up test catches it. */
function importersOf(builtin: string, ran: string[]): string[] {
  const named = new RegExp(`['"](node:)?${builtin.replace('/', '\\/')}['"]`);
  return ran.filter((file) => {
    try {
      return named.test(readFileSync(join(ROOT, file), 'utf8'));
    } catch {
      return false;
    }
  });
}

/** The modules of NOT_FOR_A_REQUEST a run loaded, each with the files that ran and import it. */
function caught(result: { builtins: string[]; ran: string[] }): string[] {
  return result.builtins
    .filter((name) => NOT_FOR_A_REQUEST.includes(name))
    .map((name) => `${name} (imported by: ${importersOf(name, result.ran).join(', ') || '?'})`);
}
/** The command modules (one `defineCommand` each; help's is part of the program itself). */
const COMMAND_FILES = readdirSync(join(ROOT, 'src/commands'), { recursive: true })
  .map((name) => `src/commands/${name}`)
  .filter((file) => file.endsWith('.ts') && !file.endsWith('/help/help.ts'))
  .filter((file) => readFileSync(join(ROOT, file), 'utf8').includes('= defineCommand('));
/** The bundled modules of `pkg` that ran (esbuild names each module's wrapper by its path). */
const ranOf = (ran: string[], pkg: string) =>
  ran.filter((name) => name.startsWith(`node_modules/${pkg}/`));

describe('what an API command loads', () => {
  const start = async () => {
    const server = await faultServer((_req, res) => reply(res, 200, PETS));
    return processEnv({ STORE_BASE_URL: server.url, STORE_API_KEY: 'k-1234' });
  };

  it.each([
    ['--json', ['--json', 'pets', 'list'], `${PETS}\n`, 'pipe'],
    // stdin on /dev/null (cron, `< /dev/null`): process.stdin would be a file stream, with
    // fs/promises and readline: nothing may make it where nothing is asked.
    ['--json, stdin /dev/null', ['pets', 'list', '--json'], `${PETS}\n`, 'null'],
    ['--json FIELDS', ['pets', 'list', '--json', 'name'], '[{"name":"Rex"}]\n', 'pipe'],
    [
      'tab-separated',
      ['pets', 'list'],
      'ID\tNAME\tCATEGORY\tSTATUS\n1\tRex\t2\tavailable\n',
      'null',
    ],
  ] as const)(
    'store pets list (%s) loads neither chalk nor the table renderer',
    async (_what, argv, stdout, stdin) => {
      const result = await modulesLoaded([...argv], await start(), stdin);
      expect(result).toMatchObject({ code: 0, stdout, stderr: '' });
      // chalk and the table are only in table.cjs (the last test), which was not even read;
      // nor was the jq engine's jq.cjs (next test).
      expect(result.scripts).toEqual(['store.cjs']);
      expect(result.ran.filter((name) => /jq/.test(name))).toEqual([]);
      // What the request does run: the detection is not blind.
      expect(result.ran).toContain('src/render/output.ts');
      // Only the command that runs is loaded (src/program.ts, loadCommands).
      expect(result.ran).toContain('src/commands/pets/list.ts');
      const others = COMMAND_FILES.filter((file) => file !== 'src/commands/pets/list.ts');
      expect(others.length).toBeGreaterThan(10);
      expect(result.ran.filter((name) => others.includes(name))).toEqual([]);
      // Nor `store help` and its topics' text (loaded with the whole tree only).
      expect(result.ran.filter((name) => name.startsWith('src/commands/help/')).sort()).toEqual([
        'src/commands/help/layout.ts',
        'src/commands/help/suggest.ts',
      ]);
      // A direct request goes by Node's own client (src/api/direct.ts): undici, for proxies,
      // is neither run nor read.
      expect(result.ran).toContain('src/api/direct.ts');
      expect(ranOf(result.ran, 'undici')).toEqual([]);
      expect(result.builtins).toContain('http');
      expect(caught(result)).toEqual([]);
    },
  );

  it.each([
    ['--json', ['--json'], '{"id":1,"name":"Rex","categoryId":2}\n'],
    ['tab-separated', [], 'ID\tNAME\tCATEGORY\tSTATUS\n1\tRex\t2\t\n'],
    ['--dry-run', ['--dry-run'], ''],
  ])(
    'store pets add --file (%s) loads neither chalk nor the table renderer',
    async (_what, flags, stdout) => {
      // A bulk import with a terminal's stdout loads the table's renderer as it starts (a
      // second Ctrl-C draws the table without waiting); into a pipe it must not.
      const server = await faultServer((_req, res) =>
        reply(res, 201, '{"id":1,"name":"Rex","categoryId":2}'),
      );
      const file = join(tempDir(), 'animals.ndjson');
      writeFileSync(file, '{"name":"Rex","categoryId":2}\n');
      const env = processEnv({ STORE_BASE_URL: server.url, STORE_API_KEY: 'k-1234' });
      const result = await modulesLoaded(['pets', 'add', '--file', file, ...flags], env);
      expect(result).toMatchObject({ code: 0, stdout });
      // Its many requests go by undici's Agent (src/api/undici-sender.ts); not --dry-run's none.
      expect(result.scripts).toEqual(
        flags.includes('--dry-run') ? ['store.cjs'] : ['agent.cjs', 'store.cjs'],
      );
      expect(result.ran).toContain('src/render/bulk-report.ts');
    },
  );

  it('reads a key kept in config.json without the keyring module; one kept in the keyring with it', async () => {
    const server = await faultServer((_req, res) => reply(res, 200, PETS));
    const dir = tempDir();
    const config = (profile: object) =>
      writeFileSync(
        join(dir, 'config.json'),
        JSON.stringify({ profiles: { loc: { baseUrl: server.url, ...profile } } }),
        { mode: 0o600 },
      );
    // No D-Bus session here: the keyring cannot be read, whatever the machine has.
    const env = processEnv({
      STORE_CONFIG_DIR: dir,
      STORE_PROFILE: 'loc',
      DBUS_SESSION_BUS_ADDRESS: `unix:path=${join(dir, 'no-bus')}`,
    });
    config({ apiKey: 'k-1234' });
    const fromFile = await modulesLoaded(['pets', 'list', '--json'], env);
    expect(fromFile).toMatchObject({ code: 0, stdout: `${PETS}\n`, stderr: '' });
    expect(fromFile.ran).not.toContain('src/config/key-store.ts');
    config({ keyStorage: 'keyring' });
    const fromKeyring = await modulesLoaded(['pets', 'list', '--json'], env);
    expect(fromKeyring.code).toBe(4);
    expect(fromKeyring.ran).toContain('src/config/key-store.ts');
  });

  it('loads the jq engine (jq.cjs) for --jq, and only then', async () => {
    const result = await modulesLoaded(['pets', 'list', '--jq', '.[].name'], await start());
    expect(result).toMatchObject({ code: 0, stdout: 'Rex\n', stderr: '' });
    expect(result.scripts).toEqual(['jq.cjs', 'store.cjs']);
    expect(ranOf(result.ran, 'jq-wasm')).not.toEqual([]);
  });

  it('sees the modules a command does load (a config write takes its lock with crypto)', async () => {
    const result = await modulesLoaded(
      ['profile', 'set', 'mine', '--base-url', 'http://127.0.0.1:9/v1'],
      processEnv({ STORE_CONFIG_DIR: tempDir() }),
    );
    expect(result).toMatchObject({ code: 0, stderr: 'Created profile mine\n' });
    expect(result.builtins).toContain('crypto');
  });

  it('loads them when colour is asked for (the detection does see chalk)', async () => {
    const env = { ...(await start()), FORCE_COLOR: '1' };
    const result = await modulesLoaded(['pets', 'list'], env);
    expect(result).toMatchObject({ code: 0, stderr: '' });
    expect(result.stdout).toBe(
      'ID\tNAME\tCATEGORY\tSTATUS\n1\tRex\t2\t\u001b[32mavailable\u001b[39m\n',
    );
    expect(result.scripts).toEqual(['store.cjs', 'table.cjs']);
    expect(ranOf(result.ran, 'chalk')).not.toEqual([]);
  });

  it('has chalk only in the table renderer’s file in dist/, and no cli-table3', () => {
    const dist = join(BIN, '../../dist');
    // What each file of dist/ was built from: its source map's sources.
    const withChalk = readdirSync(dist)
      .filter((name) => name.endsWith('.cjs.map'))
      .filter((name) => {
        const { sources } = JSON.parse(readFileSync(join(dist, name), 'utf8')) as {
          sources: string[];
        };
        return sources.some((source) => source.includes('node_modules/chalk/'));
      });
    expect(withChalk).toEqual(['table.cjs.map']);
    // cli-table3 is not bundled at all (src/render/table.ts draws tables): its licence would be
    // among the notices of what the build bundled, as chalk's is.
    const notices = readFileSync(join(dist, 'THIRD_PARTY_NOTICES'), 'utf8');
    expect(notices).toMatch(/^chalk \d/m);
    expect(notices).not.toContain('cli-table3');
  });
});

describe('the Model Context Protocol SDK', () => {
  /** The files of dist/ whose source map names `pkg`'s files. */
  const bundling = (pkg: string) =>
    readdirSync(join(ROOT, 'dist'))
      .filter((name) => name.endsWith('.cjs.map'))
      .filter((name) => {
        const { sources } = JSON.parse(readFileSync(join(ROOT, 'dist', name), 'utf8')) as {
          sources: string[];
        };
        return sources.some((source) => source.includes(`node_modules/${pkg}/`));
      });

  it('is in dist/mcp.cjs only, which `store mcp` alone loads', async () => {
    expect(bundling('@modelcontextprotocol/sdk')).toEqual(['mcp.cjs.map']);
    const env = processEnv({ STORE_BASE_URL: 'http://127.0.0.1:9/v1', STORE_API_KEY: 'k-1234' });
    for (const argv of [['--help'], ['profile', 'list'], ['auth', 'status', '--json']]) {
      const result = await modulesLoaded(argv, env);
      expect(result.scripts).not.toContain('mcp.cjs');
      expect(ranOf(result.ran, '@modelcontextprotocol/sdk')).toEqual([]);
    }
    // The detection sees it where it is loaded (stdin is empty: the server ends at once).
    const served = await modulesLoaded(['mcp'], env);
    expect(served).toMatchObject({ code: 0, stdout: '' });
    expect(served.scripts).toContain('mcp.cjs');
    expect(ranOf(served.ran, '@modelcontextprotocol/sdk')).not.toEqual([]);
  });
});

describe('what a module makes as it loads', () => {
  // A regular expression with a Unicode property class costs ICU's work on that class when it
  // is made, used or not (src/lazy-pattern.ts): in src/ each is made at its first use.
  it('makes no regular expression with a Unicode property class', () => {
    const files = readdirSync(join(ROOT, 'src'), { recursive: true })
      .map(String)
      .filter((file) => file.endsWith('.ts'));
    const eager = files.flatMap((file) =>
      readFileSync(join(ROOT, 'src', file), 'utf8')
        .split('\n')
        .map((line, i) => ({ at: `src/${file}:${i + 1}`, line }))
        .filter(({ line }) => /\\[pP]\{/.test(line) && !/^\s*(\/\/|\*)/.test(line))
        .filter(({ line }) => !/lazyPattern\(\(\) => \//.test(line))
        .map(({ at }) => at),
    );
    expect(eager).toEqual([]);
    // The search sees them: width.ts has several, each behind lazyPattern.
    const width = readFileSync(join(ROOT, 'src/render/width.ts'), 'utf8');
    expect(width.match(/lazyPattern\(\(\) => \/[^\n]*\\p\{/g)?.length).toBeGreaterThan(3);
  });
});
