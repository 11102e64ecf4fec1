// --help and `store help` fit the terminal: wrapped at word boundaries, examples broken into
// shell continuation lines that still paste as one command.
import { describe, expect, it } from 'vitest';
import { exampleLines } from '../../../src/commands/help/layout.js';
import { run } from '../../helpers/cli.js';
import { store } from '../../helpers/process.js';
import { commandPaths } from '../../helpers/tree.js';
import { tooWide, words } from '../../helpers/wrap.js';

describe('--help at the terminal width', () => {
  const paths = [[], ...commandPaths()];

  it.each(paths.map((path) => [path.join(' ') || '(store)', path]))(
    '%s --help fits 20, 40, 60, 80 and 200 columns, with the same words',
    async (_name, path) => {
      const at80 = await run([...path, '--help'], { columns: 80 });
      expect(at80.code).toBe(0);
      for (const columns of [20, 40, 60, 80, 200]) {
        const result = await run([...path, '--help'], { columns });
        expect(result.code).toBe(0);
        expect(tooWide(result.stdout, columns), `${path.join(' ')} at ${columns}`).toEqual([]);
        expect(words(result.stdout)).toEqual(words(at80.stdout));
      }
    },
  );

  it('puts an option’s meaning under it when it is too cramped beside it', async () => {
    const narrow = await run(['pets', 'list', '--help'], { columns: 40 });
    expect(narrow.stdout).toContain(
      '  --limit <n>\n      at most n animals, 1-100 (server\n      default: 20)\n',
    );
    const wide = await run(['pets', 'list', '--help'], { columns: 80 });
    expect(wide.stdout).toMatch(
      /\n {2}--limit <n> +at most n animals, 1-100 \(server default: 20\)\n/,
    );
  });

  it('breaks a long example with a continuation and keeps it on one line when it fits', async () => {
    const narrow = await run(['pets', 'add', '--help'], { columns: 40 });
    expect(narrow.stdout).toContain(
      '  $ store pets add --name Rex \\\n      --category-id 1 --status available\n',
    );
    const wide = await run(['pets', 'add', '--help'], { columns: 200 });
    expect(wide.stdout).toContain(
      '  $ store pets add --name Rex --category-id 1 --status available\n',
    );
  });

  it('lists a group’s help command in the words of every other help line', async () => {
    for (const group of ['pets', 'messages', 'orders', 'auth', 'profile']) {
      const result = await run([group, '--help'], { columns: 80 });
      expect(result.stdout).toMatch(/\n {2}help \[command\] +Show help for a command\n/);
    }
  });

  it('lists the help topics to fit', async () => {
    const narrow = await run(['--help'], { columns: 40 });
    expect(narrow.stdout).toMatch(
      /\nHelp topics:\n {2}store help environment\n {6}environment variables, and which\n {6}setting wins\n/,
    );
  });

  it('honours COLUMNS in a real process (help in a pipe is otherwise 80 columns)', async () => {
    const narrow = await store(['help', 'exit-codes'], {
      env: { PATH: process.env.PATH ?? '', COLUMNS: '50' },
    });
    expect(narrow.code).toBe(0);
    expect(tooWide(narrow.stdout, 50)).toEqual([]);
    expect(narrow.stdout).toContain('  2    usage: unknown command or flag, missing or\n');
    const piped = await store(['help', 'exit-codes'], { env: { PATH: process.env.PATH ?? '' } });
    expect(piped.stdout).toContain(
      '  2    usage: unknown command or flag, missing or invalid argument or flag\n',
    );
  });
});

describe('exampleLines', () => {
  it('never breaks inside quotes, so each line pastes into a shell', () => {
    expect(
      exampleLines(`echo '{"name": "Tom", "categoryId": 2}' | store pets add --file -`, 32),
    ).toBe(
      `  $ echo \\\n      '{"name": "Tom", "categoryId": 2}' \\\n      | store pets add --file -`,
    );
  });

  it('keeps room for the continuation mark on every line but the last', () => {
    expect(exampleLines('store aaaa bbbb', 20)).toBe('  $ store aaaa bbbb');
    expect(exampleLines('store aaaa bbbb cccc', 20)).toBe('  $ store aaaa \\\n      bbbb cccc');
  });
});
