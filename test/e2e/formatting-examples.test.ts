// The examples of `store help formatting` do what the topic says: each is run as written, by
// bash, with `store` on PATH, against a sandbox seeded with four animals.
import { spawn } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { FORMATTING_EXAMPLES } from '../../src/commands/help/topics.js';
import { tempDir } from '../helpers/cli.js';
import { BIN, collect, killAll, startSandbox } from '../helpers/process.js';
import { commandPaths, programTree } from '../helpers/tree.js';

afterEach(killAll);

const tree = programTree();
const RUNNABLE = commandPaths(tree)
  .filter((path) => {
    const command = path.reduce(
      (at, name) => at.commands.find((sub) => sub.name() === name) ?? at,
      tree,
    );
    return command.commands.length === 0;
  })
  .map((path) => path.join(' '));

/** What each example prints on stdout (seed 4: Rex, Bella, Milo, Luna; ids 1 to 4). */
const EXPECTED: Record<(typeof FORMATTING_EXAMPLES)[number], string> = {
  'store pets list --status available | tail -n +2 | cut -f2': 'Rex\nLuna\n',
  "store pets list | awk -F'\\t' 'NR > 1 && $4 == \"sold\" { print $1 }'": '3\n',
  'store pets list --json id,name':
    '[{"id":1,"name":"Rex"},{"id":2,"name":"Bella"},{"id":3,"name":"Milo"},{"id":4,"name":"Luna"}]\n',
  'store pets list --jq \'.[] | select(.status == "sold") | .name\'': 'Milo\n',
  "store pets list --jq 'map(.id) | max'": '4\n',
  "store help --jq '.commands[].path'": `${[...RUNNABLE, 'help'].join('\n')}\n`,
  'store pets add --file animals.ndjson --json > results.ndjson': '',
};

/** What an example says on stderr: a bulk add ends with its summary (as JSON under --json). */
const STDERR: Partial<Record<(typeof FORMATTING_EXAMPLES)[number], string>> = {
  'store pets add --file animals.ndjson --json > results.ndjson':
    '{"summary":{"created":1,"failed":0,"uncertain":0,"notSent":0}}\n',
};

describe('store help formatting', () => {
  it('has examples that run as shown', async () => {
    const sandbox = await startSandbox(['--seed', '4']);
    const bin = tempDir();
    writeFileSync(join(bin, 'store'), `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
    chmodSync(join(bin, 'store'), 0o755);
    const cwd = tempDir();
    writeFileSync(join(cwd, 'animals.ndjson'), '{"name":"Kit","categoryId":2}\n');
    expect(Object.keys(EXPECTED)).toEqual([...FORMATTING_EXAMPLES]);
    for (const example of FORMATTING_EXAMPLES) {
      const child = spawn('bash', ['-o', 'pipefail', '-c', example], {
        cwd,
        env: sandbox.env({ PATH: `${bin}:${process.env.PATH}` }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const result = await collect(child);
      expect({ example, ...result }).toEqual({
        example,
        code: 0,
        signal: null,
        stdout: EXPECTED[example],
        stderr: STDERR[example] ?? '',
      });
    }
    expect(readFileSync(join(cwd, 'results.ndjson'), 'utf8')).toBe(
      '{"id":5,"name":"Kit","categoryId":2}\n',
    );
  });
});
