import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { run } from '../helpers/cli.js';
import { commandPaths } from '../helpers/tree.js';

const PATHS = commandPaths();

describe('help', () => {
  it('has every command the contract names', () => {
    // Read from the contract itself (../shared beside the repository, as in CI).
    const contract = readFileSync(
      new URL('../../../shared/cli-contract.md', import.meta.url),
      'utf8',
    );
    const named = new Set<string>();
    for (const [, words = ''] of contract.matchAll(/`store ((?:[a-z]+ ?)+)/g)) {
      const path = words.trim().split(' ');
      // Only the leading words that are commands: `store pets list --status` → pets list.
      for (let n = path.length; n > 0; n -= 1) {
        const candidate = path.slice(0, n).join(' ');
        if (PATHS.some((known) => known.join(' ') === candidate)) {
          named.add(candidate);
          break;
        }
        if (n === 1) named.add(`missing: ${words.trim()}`);
      }
    }
    expect([...named].filter((name) => name.startsWith('missing'))).toEqual([]);
    expect(named.size).toBeGreaterThanOrEqual(15);
  });

  it.each([[[]], ...PATHS.map((path) => [path])])(
    'store %j --help shows usage, the global options and examples on stdout',
    async (path) => {
      const result = await run([...path, '--help']);
      expect(result.code).toBe(0);
      expect(result.stderr).toBe('');
      expect(result.stdout).toMatch(new RegExp(`^Usage: store ${path.join(' ')}`.trimEnd()));
      expect(result.stdout).toContain('--profile <name>');
      expect(result.stdout).toMatch(/\nExamples:\n {2}\$ store /);
    },
  );

  it('prints the top-level help on stdout with exit 0 for a bare `store`', async () => {
    const result = await run([]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: store \[options\] \[command\]\n/);
    expect(result.stderr).toBe('');
  });

  it('treats a noun without a verb as a usage error (help on stderr, exit 2)', async () => {
    const result = await run(['pets']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^Usage: store pets \[options\] \[command\]\n/);
  });

  it('shows a command’s help through a noun’s help subcommand with exit 0 (store pets help list)', async () => {
    const result = await run(['pets', 'help', 'list']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: store pets list \[options\]\n/);
    expect(result.stderr).toBe('');
  });
});

describe('version', () => {
  it.each([['-V'], ['--version']])('%s prints the version on stdout, exit 0', async (flag) => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(await run([flag])).toEqual({
      code: 0,
      stdout: `${pkg.version}\n`,
      stderr: '',
      prompts: [],
    });
  });
});
