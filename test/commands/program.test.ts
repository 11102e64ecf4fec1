// The command tree is loaded for what the invocation names: `store pets list` loads and builds
// pets list alone (each command module builds its schemas and its commander command when
// loaded); anything else (help, a top-level command, a typo) loads every command.
import { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { scanArgv } from '../../src/argv.js';
import { defineCommand, toOption } from '../../src/commands/define.js';
import { type CommandSet, globalValueFlags, loadCommands } from '../../src/program.js';
import * as z from '../../src/zod.js';
import { run } from '../helpers/cli.js';
import { ALL_COMMANDS, commandPaths } from '../helpers/tree.js';

/** The commands a set holds, as words: ['pets list', …], then the top-level ones. */
const names = (set: CommandSet) => [
  ...set.nouns.flatMap(({ noun, verbs }) => verbs.map((verb) => `${noun.name} ${verb.name}`)),
  ...set.topLevel.map((command) => command.name),
];

describe('loadCommands', () => {
  it.each([
    [['pets', 'list'], ['pets list']],
    [['pets', 'list', '--json', '--limit', '5'], ['pets list']],
    [['-p', 'staging', '--timeout', '5', 'orders', 'list'], ['orders list']],
    [['--json', 'profile', 'use', 'staging'], ['profile use']],
    [['--json', 'id,name', 'pets', 'list'], ['pets list']],
  ])('for %j loads only %j', async (argv, expected) => {
    const set = await loadCommands(scanArgv(argv, globalValueFlags()));
    expect(names(set)).toEqual(expected);
    expect(set.help).toBeUndefined();
  });

  it.each([
    [[]],
    [['pets']],
    [['pets', 'lst']],
    [['--help', 'pets', 'list']],
    [['pets', 'list', '-h']],
    [['help', 'pets', 'list']],
    [['completion', 'bash']],
    [['api', 'pets']],
    [['--', 'pets', 'list']],
    [['-p', 'pets', 'list']],
  ])('for %j loads every command', async (argv) => {
    const set = await loadCommands(scanArgv(argv, globalValueFlags()));
    expect(set.help?.registerHelp).toBeTypeOf('function');
    expect(names(set)).toEqual(names(ALL_COMMANDS));
  });

  it.each([
    [['--json', 'pets', 'list'], { json: true, debug: false, help: false }],
    [['pets', 'list', '--jq', '.[0]'], { json: true, debug: false, help: false }],
    [['--json=id,name', '--debug', 'pets', 'list'], { json: true, debug: true, help: false }],
    [['pets', 'list', '-h'], { json: false, debug: false, help: true }],
    [['api', '--', '--json', '--debug'], { json: false, debug: false, help: false }],
  ])('reads %j once for what is needed before parsing: %j', (argv, expected) => {
    const { json, debug, help } = scanArgv(argv, globalValueFlags());
    expect({ json, debug, help }).toEqual(expected);
  });

  it('loads every command of the tree when given nothing (the hidden __complete too)', () => {
    const paths = commandPaths().map((path) => path.join(' '));
    expect(names(ALL_COMMANDS).filter((name) => !paths.includes(name))).toEqual(['__complete']);
    expect(
      paths
        .filter((path) => path.includes(' '))
        .every((path) => names(ALL_COMMANDS).includes(path)),
    ).toBe(true);
  });
});

describe('a command run with only itself loaded', () => {
  it('keeps its errors and suggestions: an unknown option of pets list', async () => {
    const result = await run(['pets', 'list', '--limt', '5']);
    expect(result).toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'error: unknown option "--limt" (did you mean "--limit"?)\n',
    });
  });

  it('a verb that is not one loads all and suggests the right one', async () => {
    const result = await run(['pets', 'lst']);
    expect(result).toMatchObject({
      code: 2,
      stdout: '',
      stderr: 'error: unknown command "lst" (did you mean "list"?)\n',
    });
  });
});

describe('a declaration', () => {
  it('is refused when a flag or an argument is keyed by another name than commander gives it', () => {
    const flag = { flags: '--category-id <id>', description: 'the category', schema: z.string() };
    expect(() => toOption('category', flag)).toThrow(
      'flag --category-id <id> is declared as "category", not "categoryId"',
    );
    const command = defineCommand({
      name: 'x',
      description: 'x',
      args: { id: { name: '<petId>', description: 'the id', schema: z.string() } },
      examples: [],
      run: async () => {},
    });
    expect(() =>
      command.register(new Command(), () => {
        throw new Error('not run');
      }),
    ).toThrow('argument <petId> is declared as "id"');
  });
});
