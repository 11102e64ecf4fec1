import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../src/program.js';
import { run, testIO } from '../helpers/cli.js';

function commandPaths(command: Command, prefix: string[] = []): string[][] {
  // As --help lists them: hidden commands (`__complete`) left out.
  return command
    .createHelp()
    .visibleCommands(command)
    .filter((sub) => sub.name() !== 'help')
    .flatMap((sub) => {
      const path = [...prefix, sub.name()];
      return [path, ...commandPaths(sub, path)];
    });
}

const { io } = testIO({}, {});
const PATHS = commandPaths(
  buildProgram(io, () => {
    throw new Error('no command runs while listing them');
  }),
);

describe('help', () => {
  it('knows every command of the contract', () => {
    expect(PATHS.map((path) => path.join(' '))).toEqual([
      'pets',
      'pets list',
      'pets add',
      'pets get',
      'messages',
      'messages send',
      'orders',
      'orders list',
      'auth',
      'auth login',
      'auth logout',
      'auth status',
      'auth token',
      'profile',
      'profile list',
      'profile use',
      'profile set',
      'profile remove',
      'sandbox',
      'completion',
    ]);
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
