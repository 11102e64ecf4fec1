// The README's reference tables are checked against the single sources they describe: a
// command, an environment variable or an exit code changed in one place fails here until the
// README says the same.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { withCommandsTable } from '../../src/docs/readme.js';
import { ENVIRONMENT } from '../../src/reference/environment.js';
import { EXIT_CODE_TABLE } from '../../src/reference/exit-codes.js';
import { commandPaths, programTree } from '../helpers/tree.js';

const README = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');

/** The text of one `## ` section. */
function section(title: string): string {
  const start = README.indexOf(`\n## ${title}\n`);
  expect(start, `README section "${title}"`).toBeGreaterThan(-1);
  const end = README.indexOf('\n## ', start + 1);
  return README.slice(start, end === -1 ? undefined : end);
}

describe('README', () => {
  it('has the exit-code table of src/reference/exit-codes.ts, row for row', () => {
    const rows = [...section('Exit codes').matchAll(/^\| (\d+) \| (.+) \|$/gm)].map(
      ([, code, meaning]) => [Number(code), meaning],
    );
    expect(rows).toEqual(EXIT_CODE_TABLE.map((entry) => [entry.code, entry.meaning]));
  });

  it('names every environment variable of src/reference/environment.ts', () => {
    const text = section('Profiles and environment') + section('Global options');
    const missing = ENVIRONMENT.flatMap(
      (variable) => variable.name.match(/[A-Z][A-Z_]{2,}/g) ?? [],
    ).filter((name) => !text.includes(`\`${name}\``));
    expect(missing).toEqual([]);
  });

  it('lists every command of the tree in its Commands table', () => {
    const table = section('Commands');
    const paths = commandPaths();
    const prefix = (path: string[]) => `${path.join(' ')} `;
    // Commands that run (not nouns, which only group them).
    const leaves = paths.filter(
      (path) =>
        !paths.some(
          (other) => prefix(other).startsWith(prefix(path)) && other.length > path.length,
        ),
    );
    const missing = leaves
      .map((path) => `store ${path.join(' ')}`)
      .filter((words) => !table.includes(`\`${words}`));
    expect(missing).toEqual([]);
  });
});

describe('the README Commands table', () => {
  it('is the one `npm run generate` makes from the command tree', () => {
    expect(README).toBe(withCommandsTable(README, programTree()));
  });
});
