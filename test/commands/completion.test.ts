import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, vi } from 'vitest';
import { defineCommand } from '../../src/commands/define.js';
import { fileFlag, switchFlag } from '../../src/commands/flags.js';
import { completionModel } from '../../src/completion/model.js';
import { SCRIPT_FILES, SHELLS } from '../../src/completion/shells.js';
import * as z from '../../src/zod.js';
import { afterThisTest } from '../helpers/cleanup.js';
import { configSetup, run, tempDir } from '../helpers/cli.js';
import { modulesLoaded } from '../helpers/process.js';
import { programTree, visibleNames } from '../helpers/tree.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));

describe('store completion <shell>', () => {
  it.each(SHELLS)('prints the committed completions/ script for %s', async (shell) => {
    const committed = readFileSync(join(ROOT, 'completions', SCRIPT_FILES[shell]), 'utf8');
    const result = await run(['completion', shell]);
    expect(result.code).toBe(0);
    expect(result.stderr).toBe('');
    // On failure: `npm run completions` rewrites completions/ from the program.
    expect(result.stdout).toBe(committed);
  });

  it('needs a shell: exit 2 and the list of shells', async () => {
    const result = await run(['completion']);
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toBe(
      'error: a shell is required: one of bash, zsh, fish (e.g. store completion bash)\n',
    );
  });

  it('refuses an unknown shell with exit 2 and the list of shells', async () => {
    const result = await run(['completion', 'ksh']);
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toBe('error: shell must be one of bash, zsh, fish (got "ksh")\n');
  });
});

describe('the completion model', () => {
  const program = programTree;

  it('is read from the program: a new command and its flags need no change to the generator', () => {
    const extended = program();
    defineCommand({
      name: 'zoo',
      description: 'Feed the animals',
      args: {
        animal: { name: '[animal]', description: 'one animal', schema: z.optional(z.string()) },
      },
      flags: {
        food: {
          flags: '--food <kind>',
          description: 'what to feed',
          schema: z.optional(z.string()),
        },
        file: fileFlag('--file <path>', 'a feeding plan'),
        quiet: switchFlag('--quiet', 'say nothing'),
      },
      examples: ['store zoo --food hay'],
      run: async () => {},
    }).register(extended, () => {
      throw new Error('no command runs while generating');
    });
    const zoo = completionModel(extended).commands.find((command) => command.path[0] === 'zoo');
    expect(zoo).toEqual({
      path: ['zoo'],
      description: 'Feed the animals',
      subcommands: [],
      options: [
        { flags: ['--food'], description: 'what to feed', values: { kind: 'none' } },
        { flags: ['--file'], description: 'a feeding plan', values: { kind: 'files' } },
        { flags: ['--quiet'], description: 'say nothing', values: undefined },
      ],
      arguments: [undefined],
      jsonFields: [],
    });
  });

  it('knows the values of --status, profile names and files, and the global options', () => {
    const model = completionModel(program());
    const byPath = (path: string) =>
      model.commands.find((command) => command.path.join(' ') === path);
    expect(byPath('pets list')?.options).toEqual([
      {
        flags: ['--status'],
        description: 'only animals with this status (available, pending, sold)',
        values: { kind: 'words', words: ['available', 'pending', 'sold'] },
      },
      {
        flags: ['--limit'],
        description: 'at most n animals, 1-100 (server default: 20)',
        values: { kind: 'none' },
      },
    ]);
    expect(byPath('profile use')?.arguments).toEqual([{ kind: 'profiles' }]);
    // --json's fields, from each command's output declaration.
    expect(byPath('pets list')?.jsonFields).toEqual(['id', 'name', 'categoryId', 'status']);
    expect(byPath('messages send')?.jsonFields).toEqual(['id', 'message', 'status', 'createdAt']);
    expect(byPath('orders list')?.jsonFields).toEqual([]);
    expect(byPath('completion')?.jsonFields).toEqual([]);
    // store api completes the spec's paths (contract, "Raw requests").
    expect(byPath('api')?.arguments).toEqual([
      { kind: 'words', words: ['/pets', '/pets/{petId}', '/messages', '/store/orders'] },
    ]);
    expect(byPath('profile remove')?.arguments).toEqual([{ kind: 'profiles' }]);
    expect(byPath('completion')?.arguments).toEqual([
      { kind: 'words', words: ['bash', 'zsh', 'fish'] },
    ]);
    expect(model.common.map((option) => [option.flags.join(' '), option.values?.kind])).toEqual([
      ['-V --version', undefined],
      ['-p --profile', 'profiles'],
      ['--json', 'json-fields'],
      ['--jq', 'none'],
      ['--no-color', undefined],
      ['--debug', undefined],
      ['--timeout', 'none'],
      ['-h --help', undefined],
    ]);
    expect(byPath('')?.subcommands.map((sub) => sub.name)).toEqual([
      ...visibleNames(programTree()),
      'help',
    ]);
  });
});

describe('store __complete profiles', () => {
  it('prints the built-in profiles, then the user profiles from config.json', async () => {
    const { env, file } = configSetup();
    writeFileSync(
      file,
      JSON.stringify({
        currentProfile: 'eu',
        profiles: { eu: { baseUrl: 'https://eu.example/v1' }, staging: {}, 'team-b': {} },
      }),
    );
    const result = await run(['__complete', 'profiles'], { env });
    expect(result).toEqual({
      code: 0,
      stdout: 'production\nstaging\nsandbox\neu\nteam-b\n',
      stderr: '',
      prompts: [],
    });
  });

  it('reads a config.json saved with a byte-order mark (Windows Notepad)', async () => {
    const { env, file } = configSetup();
    writeFileSync(file, `\uFEFF${JSON.stringify({ profiles: { eu: {} } })}`);
    const result = await run(['__complete', 'profiles'], { env });
    expect(result.stdout).toBe('production\nstaging\nsandbox\neu\n');
  });

  it.each([
    ['no config file', undefined],
    ['a config file that is not JSON', '{"profiles": {'],
    ['a config file that is not an object', '[1, 2]'],
  ])('still offers the built-ins with %s, quietly', async (_what, content) => {
    const { env, file } = configSetup();
    if (content !== undefined) writeFileSync(file, content);
    const result = await run(['__complete', 'profiles'], { env });
    expect(result).toEqual({
      code: 0,
      stdout: 'production\nstaging\nsandbox\n',
      stderr: '',
      prompts: [],
    });
    // Completion only reads: the broken file is left as it was.
    if (content !== undefined) expect(readFileSync(file, 'utf8')).toBe(content);
  });

  it('still offers the built-ins, quietly, with no home folder to find the config in', async () => {
    const os = process.getBuiltinModule('node:os');
    const userInfo = vi.spyOn(os, 'userInfo').mockImplementation(() => {
      throw new Error('uv_os_homedir returned ENOENT');
    });
    afterThisTest(() => userInfo.mockRestore());
    const result = await run(['__complete', 'profiles'], { env: { TERM: 'dumb' } });
    expect(result).toEqual({
      code: 0,
      stdout: 'production\nstaging\nsandbox\n',
      stderr: '',
      prompts: [],
    });
  });

  it('is hidden from help', async () => {
    const result = await run(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).not.toContain('__complete');
  });

  it('refuses an unknown kind with exit 2', async () => {
    const result = await run(['__complete', 'pets']);
    expect(result).toMatchObject({ code: 2, stdout: '' });
    expect(result.stderr).toBe('error: __complete must be one of profiles (got "pets")\n');
  });

  it('store __complete profiles runs none of zod, conf, undici or commander', async () => {
    const result = await modulesLoaded(['__complete', 'profiles'], {
      ...process.env,
      STORE_CONFIG_DIR: tempDir(),
    });
    expect(result).toMatchObject({ code: 0, stdout: 'production\nstaging\nsandbox\n' });
    expect(result.ran).toContain('src/completion/profiles.ts');
    for (const pkg of ['zod', 'conf', 'undici', 'commander']) {
      expect(result.ran.filter((name) => name.startsWith(`node_modules/${pkg}/`))).toEqual([]);
    }
    // The detection is not blind: a command runs them.
    const list = await modulesLoaded(['profile', 'list', '--json'], {
      ...process.env,
      STORE_CONFIG_DIR: tempDir(),
    });
    expect(list.code).toBe(0);
    for (const pkg of ['zod', 'commander']) {
      expect(list.ran.filter((name) => name.startsWith(`node_modules/${pkg}/`))).not.toEqual([]);
    }
  });

  it('store --version reads none of the program but its first line', async () => {
    const result = await modulesLoaded(['--version'], {
      ...process.env,
      STORE_CONFIG_DIR: tempDir(),
    });
    expect(result).toMatchObject({ code: 0, stdout: '0.1.0\n', stderr: '' });
    expect(result.scripts).toEqual([]);
  });
});
