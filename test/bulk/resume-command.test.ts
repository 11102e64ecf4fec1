// The command that resumes an import (src/bulk/resume-command.ts), on one line and a flag a
// line: a shell reads both as the same command.
import { execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { commandLine, commandLines, resumeCommand } from '../../src/bulk/resume-command.js';

/** The words bash makes of a command line, with `store` standing for a program that prints
 * its arguments one per line. */
function wordsOf(command: string): string[] {
  const script = command.replace(/^store /, "printf '%s\\n' ");
  return execFileSync('bash', ['-c', script], { encoding: 'utf8' }).split('\n').slice(0, -1);
}

describe('the resume command', () => {
  const resume = resumeCommand(
    { file: "/tmp/animals of 'May'.ndjson", concurrency: 4, failed: 'failed.ndjson' },
    { json: true, jsonFields: ['id', 'name'], timeoutMs: 30_000 },
    {},
    { name: 'staging', source: 'flag' },
  );

  it('is the run that stopped, its flags and --skip', () => {
    expect(commandLine(resume(48))).toBe(
      "store -p staging pets add --file '/tmp/animals of '\\''May'\\''.ndjson' --json id,name --concurrency 4 --failed failed.ndjson --skip 48",
    );
  });

  it('laid out a flag a line, reads as the same words', () => {
    const lines = commandLines(resume(48));
    expect(lines.split('\n')).toEqual([
      'store -p staging pets add \\',
      "  --file '/tmp/animals of '\\''May'\\''.ndjson' \\",
      '  --json id,name \\',
      '  --concurrency 4 \\',
      '  --failed failed.ndjson \\',
      '  --skip 48',
    ]);
    const words = wordsOf(commandLine(resume(48)));
    expect(words).toEqual([
      '-p',
      'staging',
      'pets',
      'add',
      '--file',
      "/tmp/animals of 'May'.ndjson",
      '--json',
      'id,name',
      '--concurrency',
      '4',
      '--failed',
      'failed.ndjson',
      '--skip',
      '48',
    ]);
    expect(wordsOf(lines)).toEqual(words);
  });
});
