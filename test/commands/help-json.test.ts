// `store help --json`: one document describing every command, made from the declarations; the
// committed docs/commands.json is what it prints, so a command that changes changes it too.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { defineCommand } from '../../src/commands/define.js';
import { switchFlag } from '../../src/commands/flags.js';
import { commandReference } from '../../src/reference/commands.js';
import { ENVIRONMENT } from '../../src/reference/environment.js';
import { EXIT_CODE_TABLE } from '../../src/reference/exit-codes.js';
import { Pet } from '../../src/schemas.js';
import { run, tempDir } from '../helpers/cli.js';
import { commandPaths, programTree } from '../helpers/tree.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SNAPSHOT = join(ROOT, 'docs/commands.json');

interface Reference {
  version: number;
  globalFlags: { name: string }[];
  commands: {
    path: string;
    flags: { name: string; kind: string; values: string[] | null; repeatable: boolean }[];
    output: { shape: string; fields: { name: string; type: string }[] } | null;
    exitCodes: number[];
    network: boolean;
  }[];
  exitCodes: { code: number }[];
  environment: { name: string }[];
}

const reference = async (argv: string[] = ['help', '--json']) => {
  const result = await run(argv);
  expect(result).toMatchObject({ code: 0, stderr: '' });
  return JSON.parse(result.stdout) as Reference;
};

describe('store help --json', () => {
  it('prints what docs/commands.json holds: run `npm run generate` after changing a command', async () => {
    expect(await reference()).toEqual(JSON.parse(readFileSync(SNAPSHOT, 'utf8')));
  });

  it('is what `npm run reference` writes', () => {
    const file = join(tempDir(), 'commands.json');
    const result = spawnSync(process.execPath, [join(ROOT, 'scripts/reference.js'), file], {
      encoding: 'utf8',
    });
    expect(result).toMatchObject({ status: 0, stderr: '', stdout: `wrote ${file}\n` });
    expect(readFileSync(file, 'utf8')).toBe(readFileSync(SNAPSHOT, 'utf8'));
  });

  it('lists every command that runs, as the tree --help shows has them, and no other', async () => {
    const tree = programTree();
    const leaves = commandPaths(tree)
      .filter((path) => {
        let command = tree;
        for (const name of path) {
          command = command.commands.find((sub) => sub.name() === name) ?? command;
        }
        return command.commands.length === 0;
      })
      .map((path) => path.join(' '));
    expect(leaves.length).toBeGreaterThan(15);
    const listed = (await reference()).commands.map((command) => command.path);
    expect(listed.sort()).toEqual([...leaves, 'help'].sort());
  });

  it('describes flags, fields, exit codes and the environment from the declarations', async () => {
    const doc = await reference();
    expect(doc.version).toBe(1);
    const list = doc.commands.find((command) => command.path === 'pets list');
    expect(list).toEqual({
      path: 'pets list',
      description: 'List animals',
      arguments: [],
      flags: [
        {
          name: '--status',
          short: null,
          description: 'only animals with this status (available, pending, sold)',
          kind: 'choice',
          values: ['available', 'pending', 'sold'],
          takes: 'one of available, pending, sold',
          valueOptional: false,
          default: null,
          repeatable: false,
        },
        {
          name: '--limit',
          short: null,
          description: 'at most n animals, 1-100 (server default: 20)',
          kind: 'integer',
          values: null,
          takes: 'an integer from 1 to 100',
          valueOptional: false,
          default: null,
          repeatable: false,
        },
      ],
      network: true,
      output: {
        shape: 'list',
        fields: [
          { name: 'id', type: 'integer', optional: false },
          { name: 'name', type: 'string', optional: false },
          { name: 'categoryId', type: 'integer', optional: false },
          { name: 'status', type: 'string', optional: true },
        ],
      },
      exitCodes: EXIT_CODE_TABLE.map((entry) => entry.code),
    });
    const api = doc.commands.find((command) => command.path === 'api');
    expect(api?.flags.find((flag) => flag.name === '--header')).toMatchObject({
      kind: 'string',
      repeatable: true,
    });
    expect(doc.commands.find((command) => command.path === 'profile use')).toMatchObject({
      network: false,
      exitCodes: [0, 1, 2, 130],
      output: { shape: 'object' },
    });
    expect(doc.commands.find((command) => command.path === 'completion')?.output).toBeNull();
    // A local command that reads the key declares exit 4 besides.
    expect(doc.commands.find((command) => command.path === 'auth token')?.exitCodes).toEqual([
      0, 1, 2, 4, 130,
    ]);
    expect(doc.globalFlags.map((flag) => flag.name)).toEqual([
      '--version',
      '--profile',
      '--json',
      '--jq',
      '--no-color',
      '--debug',
      '--timeout',
    ]);
    expect(doc.exitCodes.map((entry) => entry.code)).toEqual(
      EXIT_CODE_TABLE.map((entry) => entry.code),
    );
    expect(doc.environment.map((variable) => variable.name)).toEqual(
      ENVIRONMENT.map((variable) => variable.name),
    );
  });

  it('keeps its keys in one order, whatever the command', async () => {
    const doc = await reference();
    expect(Object.keys(doc)).toEqual([
      'version',
      'program',
      'description',
      'globalFlags',
      'commands',
      'exitCodes',
      'environment',
    ]);
    for (const command of doc.commands) {
      expect(Object.keys(command)).toEqual([
        'path',
        'description',
        'arguments',
        'flags',
        'network',
        'output',
        'exitCodes',
      ]);
    }
  });

  it('changes when a command or a flag is added', () => {
    const before = JSON.stringify(commandReference(programTree()));
    const program = programTree();
    defineCommand({
      name: 'zoo',
      description: 'Feed the animals',
      flags: { quiet: switchFlag('--quiet', 'say nothing') },
      output: { shape: 'list', fields: Pet },
      examples: ['store zoo'],
      run: async () => {},
    }).register(program, () => {
      throw new Error('no command runs here');
    });
    const after = commandReference(program) as Reference;
    expect(JSON.stringify(after)).not.toBe(before);
    expect(after.commands.find((command) => command.path === 'zoo')).toMatchObject({
      flags: [{ name: '--quiet', kind: 'switch' }],
      output: { shape: 'list' },
      network: false,
    });
  });

  it('narrows to the commands under the words given, and filters with --jq', async () => {
    const pets = await reference(['help', 'pets', '--json']);
    expect(pets.commands.map((command) => command.path)).toEqual([
      'pets list',
      'pets add',
      'pets get',
    ]);
    const paths = await run(['help', '--jq', '.commands[] | select(.network) | .path']);
    expect(paths).toEqual({
      code: 0,
      stdout:
        'pets list\npets add\npets get\nmessages send\norders list\nauth login\nauth status\napi\n',
      stderr: '',
      prompts: [],
    });
    const unknown = await run(['help', 'nope', '--json']);
    expect(unknown).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        '{"error":{"code":"usage_error","message":"store help --json describes commands; \\"nope\\" is not one","status":null}}\n',
    });
  });
});
