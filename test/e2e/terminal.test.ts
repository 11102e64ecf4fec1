// bulk add in a real pseudo-terminal (util-linux `script`): the progress line is redrawn in
// place and erased before anything else is written, so no output line carries progress text.
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from '../helpers/cli.js';
import { faultServer, reply } from '../helpers/fault-server.js';
import { BIN, collect, processEnv } from '../helpers/process.js';

const hasScript = spawnSync('sh', ['-c', 'command -v script']).status === 0;
if (!hasScript && process.env.CI) throw new Error('these tests need script (util-linux)');

/** What a terminal shows of a transcript: each line as left after \r and erase-line. */
function screenLines(transcript: string): string[] {
  return transcript
    .replace(/\r\n/g, '\n')
    .split('\n')
    .map((line) => {
      let shown = '';
      for (const part of line.split('\r')) {
        const erased = part.replace(/^\u001b\[K/, '');
        shown = part.startsWith('\u001b[K') ? erased : erased + shown.slice(erased.length);
      }
      return shown.replace(/\u001b\[[0-9;]*m/g, '');
    });
}

const until = async (done: () => boolean) => {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 20));
};

/**
 * `pets add --file` of `count` animals (names p0, p1…) in a pseudo-terminal, against `url`:
 * what the terminal got so far, and two Ctrl-Cs to the process (the second once the first is
 * handled: two signals close together can arrive as one), which resolve with its transcript.
 */
function importInPty(url: string, count: number, args: string[]) {
  const file = join(tempDir(), 'animals.ndjson');
  const lines = Array.from({ length: count }, (_, i) =>
    JSON.stringify({ name: `p${i}`, categoryId: 1 }),
  );
  writeFileSync(file, `${lines.join('\n')}\n`);
  const pidFile = join(tempDir(), 'store.pid');
  const command = `'${process.execPath}' '${BIN}' pets add --file '${file}' ${args.join(' ')} & echo $! > '${pidFile}'; wait $!`;
  const child = spawn('script', ['-qec', command, '/dev/null'], {
    env: processEnv({ STORE_API_KEY: 'k', STORE_BASE_URL: url, COLUMNS: '100' }),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const ended = collect(child);
  let seen = '';
  child.stdout.on('data', (chunk) => {
    seen += chunk;
  });
  return {
    seen: () => seen,
    twoCtrlCs: async () => {
      const pid = Number(readFileSync(pidFile, 'utf8'));
      process.kill(pid, 'SIGINT');
      await until(() => seen.includes('Ctrl-C again'));
      process.kill(pid, 'SIGINT');
      return ended;
    },
  };
}

describe.runIf(hasScript || process.env.CI)('pets add --file on a terminal', () => {
  it('never leaves progress text in the table, the errors or the summary', async () => {
    const server = await faultServer((_req, res, n) => {
      const body = JSON.parse(server.seen[n - 1]?.body ?? '{}');
      setTimeout(() => {
        if (body.name === 'bad') reply(res, 400, '{"code":"no","message":"refused","status":400}');
        else reply(res, 201, JSON.stringify({ id: n, ...body }));
      }, 3);
    });
    const file = join(tempDir(), 'animals.ndjson');
    const lines = Array.from({ length: 300 }, (_, i) =>
      JSON.stringify({ name: i === 150 ? 'bad' : `p${i}`, categoryId: 1 }),
    );
    writeFileSync(file, `${lines.join('\n')}\n`);
    const command = `'${process.execPath}' '${BIN}' pets add --file '${file}' --concurrency 2`;
    const child = spawn('script', ['-qec', command, '/dev/null'], {
      env: processEnv({ STORE_API_KEY: 'k', STORE_BASE_URL: server.url, COLUMNS: '100' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const result = await collect(child);
    expect(result.code).toBe(3);
    // Progress was drawn while it ran…
    expect(result.stdout).toMatch(/\d+ created, \d+ failed \(\d+\/s/);
    const screen = screenLines(result.stdout).filter((line) => line !== '');
    // …and erased: what stays on screen is the error, the table and the summary, each whole.
    expect(screen.filter((line) => /created, \d+ failed \(\d+\/s/.test(line))).toEqual([]);
    expect(screen[0]).toBe(`Using profile production (${server.url}, from STORE_BASE_URL)`);
    expect(screen[1]).toBe('error: input 151 (line 151): refused (no, HTTP 400)');
    expect(screen[2]).toMatch(/^ID\s+NAME\s+CATEGORY\s+STATUS$/);
    expect(screen.filter((line) => /^\d+\s+p\d+\s+1$/.test(line))).toHaveLength(299);
    expect(screen.at(-1)).toMatch(
      /^299 created, 1 failed \(input 151\), 0 uncertain, 0 not sent in \d+\.\d s \(\d+\/s\)$/,
    );
  });

  it('erases the progress line on a second Ctrl-C, which ends it at once', async () => {
    // The line stayed, with the cursor after it: the shell's prompt landed on it.
    // Inputs 1-3 (p0-p2) are answered, by name: two requests in flight can arrive in either
    // order (under load, p3 came before p2 and took its answer, and the import stalled).
    // Then nothing: the requests in flight wait.
    const server = await faultServer((_req, res, n) => {
      const name = JSON.parse(server.seen[n - 1]?.body ?? '{}').name as string;
      const input = Number(name.slice(1)) + 1;
      if (input <= 3) reply(res, 201, `{"id":${input},"name":"p","categoryId":1}`);
    });
    const { seen, twoCtrlCs } = importInPty(server.url, 50, ['--concurrency', '2']);
    await until(() => server.seen.length >= 5);
    // The progress line is redrawn every half second: its last counts reach the screen. Waited
    // for, not a fixed 700 ms, which a busy machine can outlast.
    await until(() => /3 created, 0 failed \(\d+\/s/.test(seen()));
    const result = await twoCtrlCs();
    expect(result.stdout).toMatch(/3 created, 0 failed \(\d+\/s/);
    const screen = screenLines(result.stdout);
    // What stays: the line about the requests in flight, the two inputs still awaited, the
    // table of the animals created (their IDs are shown nowhere else; it was never drawn),
    // and where the import stands, then nothing: the progress line is gone.
    expect(screen.at(-1)).toBe('');
    expect(screen.filter((line) => /created, \d+ failed \(/.test(line))).toEqual([]);

    expect(screen.slice(-13, -6)).toEqual([
      'waiting for 2 requests in flight (Ctrl-C again to quit at once)',
      'error: input 4 (line 4): quit at once before its answer came: the animal may have been created',
      'error: input 5 (line 5): quit at once before its answer came: the animal may have been created',
      'ID  NAME  CATEGORY  STATUS',
      '1   p     1',
      '2   p     1',
      '3   p     1',
    ]);
    expect(screen.at(-6)).toMatch(
      /^3 created, 0 failed, 2 uncertain \(inputs 4-5\), 0 not sent in \d+\.\d s \(\d+\/s\); uncertain inputs: they may have been created, and adding them again may duplicate them; quit at once: inputs after 5 were not sent$/,
    );
    // The command to paste, a flag a line (docs/messages.md, "Every line fits").
    expect(screen.slice(-5, -1)).toEqual([
      'hint: resume with: store pets add \\',
      expect.stringMatching(/^ {2}--file \S+ \\$/),
      '  --concurrency 2 \\',
      '  --skip 5',
    ]);
  });

  it('draws the table of the animals created on a second Ctrl-C before any row was written', async () => {
    // Rows go out in input order: with input 1 awaited, inputs 2-3 created were written only
    // as the second Ctrl-C reported them, and the table's renderer, loaded from that first
    // row, was not there yet: their IDs were shown nowhere. Inputs 1 and 4 are never
    // answered, 2-3 are; --debug shows when their answers are in.
    const server = await faultServer((_req, res, n) => {
      const name = JSON.parse(server.seen[n - 1]?.body ?? '{}').name as string;
      const input = Number(name.slice(1)) + 1;
      if (input === 2 || input === 3) {
        reply(res, 201, `{"id":${input + 40},"name":"${name}","categoryId":1}`);
      }
    });
    const { seen, twoCtrlCs } = importInPty(server.url, 10, ['--concurrency', '4', '--debug']);
    await until(() => (seen().match(/< 201 Created/g) ?? []).length === 2);
    const screen = screenLines((await twoCtrlCs()).stdout);
    const header = screen.indexOf('ID  NAME  CATEGORY  STATUS');
    expect(screen.slice(header, header + 3)).toEqual([
      'ID  NAME  CATEGORY  STATUS',
      '42  p1    1',
      '43  p2    1',
    ]);
    expect(screen.at(-6)).toMatch(
      /^2 created, 0 failed, 2 uncertain \(inputs 1, 4\), 0 not sent in \d+\.\d s \(\d+\/s\); uncertain inputs: they may have been created, and adding them again may duplicate them; quit at once: inputs after 4 were not sent$/,
    );
  });
});
