// A bulk import as a real process (bin/store.js) against the sandbox on loopback: killed with
// SIGKILL at random moments and resumed as the tool says, interrupted and resumed with the
// command it prints, pasted into a shell. What the sandbox holds at the end is counted.
import { type ChildProcess, spawn } from 'node:child_process';
import {
  chmodSync,
  closeSync,
  existsSync,
  openSync,
  readFileSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/sandbox/server.js';
import { afterThisTest } from '../helpers/cleanup.js';
import { tempDir } from '../helpers/cli.js';
import { BIN, collect, processEnv } from '../helpers/process.js';

const KEY = 'resume-test-key';

/** A sandbox keeping its animals in a SQLite file, and how many POSTs it has answered. */
async function sandbox() {
  const data = join(tempDir(), 'sandbox.db');
  let posts = 0;
  const server = await startSandbox({
    port: 0,
    host: '127.0.0.1',
    apiKey: KEY,
    dataFile: data,
    log: (line) => {
      if (line.startsWith('POST ')) posts += 1;
    },
  });
  let closed = false;
  const close = async () => {
    if (closed) return;
    closed = true;
    await server.close();
  };
  afterThisTest(close);
  return {
    url: server.url,
    posts: () => posts,
    /** Stops the sandbox; how many animals it holds of each name. */
    async names(): Promise<Map<string, number>> {
      await close();
      const db = new DatabaseSync(data, { readOnly: true });
      try {
        const rows = db.prepare('SELECT name, COUNT(*) AS n FROM pets GROUP BY name').all();
        return new Map(rows.map((row) => [String(row.name), Number(row.n)]));
      } finally {
        db.close();
      }
    },
  };
}

function run(
  args: string[],
  env: NodeJS.ProcessEnv,
): { child: ChildProcess; ended: ReturnType<typeof collect> } {
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  afterThisTest(() => child.kill('SIGKILL'));
  return { child, ended: collect(child) };
}

const until = async (done: () => boolean) => {
  while (!done()) await new Promise((resolve) => setTimeout(resolve, 5));
};

/** Names of the inputs in an NDJSON file of inputs (the --uncertain file). */
function namesIn(file: string): string[] {
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => (JSON.parse(line) as { name: string }).name);
}

describe('pets add --file killed and resumed', () => {
  it('SIGKILL at random moments, resumed as the tool says: each input in the sandbox exactly once, those reported uncertain at most once', async () => {
    const box = await sandbox();
    const dir = tempDir();
    const input = join(dir, 'animals.ndjson');
    const count = 2000;
    const names = Array.from({ length: count }, (_, i) => `pet-${i}`);
    writeFileSync(input, names.map((name) => `{"name":"${name}","categoryId":1}\n`).join(''));
    const failed = join(dir, 'retry.ndjson');
    const env = processEnv({
      STORE_BASE_URL: box.url,
      STORE_API_KEY: KEY,
      XDG_CACHE_HOME: tempDir(),
    });
    const args = ['pets', 'add', '--file', input, '--json', '--failed', failed];
    let resume = false;
    let kills = 0;
    for (let attempt = 0; attempt < 8 && kills < 3; attempt += 1) {
      const { child, ended } = run(resume ? [...args, '--resume'] : args, env);
      const before = box.posts();
      // A random moment once it is sending: after 1 to 300 more answers.
      const more = 1 + Math.floor(Math.random() * 300);
      let exited = false;
      void ended.then(() => {
        exited = true;
      });
      await until(() => exited || box.posts() >= before + more);
      if (exited) break;
      child.kill('SIGKILL');
      const killed = await ended;
      expect(killed.signal).toBe('SIGKILL');
      kills += 1;
      // Run again as it was, the tool says to resume: nothing is sent.
      const posts = box.posts();
      const again = await run(args, env).ended;
      expect(again.code).toBe(2);
      expect(again.stderr).toContain('continue it with --resume');
      expect(box.posts()).toBe(posts);
      resume = true;
    }
    expect(kills).toBeGreaterThan(0);
    // To the end.
    const last = await run(resume ? [...args, '--resume'] : args, env).ended;
    expect([0, 1]).toContain(last.code);
    expect(last.stderr).toMatch(
      /^\{"summary":\{"created":\d+,"failed":0,"uncertain":\d+,"notSent":0/m,
    );
    const uncertain = new Set(namesIn(`${failed}.uncertain`));
    // Never more than the requests a run had in flight when it was killed (8 each).
    expect(uncertain.size).toBeLessThanOrEqual(8 * kills);
    const held = await box.names();
    const wrong = names.filter((name) => {
      const n = held.get(name) ?? 0;
      return uncertain.has(name) ? n > 1 : n !== 1;
    });
    expect(wrong).toEqual([]);
    expect([...held.keys()].every((name) => names.includes(name))).toBe(true);
  }, 60_000);

  it('after a Ctrl-C, the resume command it prints, pasted into a shell, adds the rest: each animal once', async () => {
    const box = await sandbox();
    const dir = tempDir();
    // A name a shell would split and unquote.
    const input = join(dir, "my pets's list.ndjson");
    const names = Array.from({ length: 400 }, (_, i) => `pet-${i}`);
    writeFileSync(input, names.map((name) => `{"name":"${name}","categoryId":1}\n`).join(''));
    // `store` on PATH, as an installed one is.
    const bin = tempDir();
    writeFileSync(join(bin, 'store'), `#!/bin/sh\nexec '${process.execPath}' '${BIN}' "$@"\n`);
    chmodSync(join(bin, 'store'), 0o755);
    const env = processEnv({
      STORE_BASE_URL: box.url,
      STORE_API_KEY: KEY,
      XDG_CACHE_HOME: tempDir(),
      PATH: `${bin}:${process.env.PATH}`,
    });
    const { child, ended } = run(['pets', 'add', '--file', input, '--concurrency', '2'], env);
    await until(() => box.posts() >= 20);
    child.kill('SIGINT');
    const first = await ended;
    expect(first.signal).toBe('SIGINT');
    const hint = first.stderr.split('\n').find((line) => line.startsWith('hint: resume with: '));
    const command = hint?.slice('hint: resume with: '.length) ?? '';
    expect(command).toMatch(
      /^store pets add --file '.*my pets'\\''s list\.ndjson' --concurrency 2 --skip \d+$/,
    );
    const pasted = await collect(
      spawn('sh', ['-c', command], { env, stdio: ['ignore', 'pipe', 'pipe'] }),
    );
    expect(pasted.code).toBe(0);
    expect(pasted.stderr).toMatch(/^\d+ created, 0 failed, 0 uncertain, 0 not sent\n$/);
    const held = await box.names();
    expect(names.filter((name) => held.get(name) !== 1)).toEqual([]);
  }, 30_000);

  it('refuses a directory on stdin (--file - < "$HOME"): exit 2, one line, nothing sent', async () => {
    const box = await sandbox();
    const folder = openSync(tempDir(), 'r');
    const child = spawn(process.execPath, [BIN, 'pets', 'add', '--file', '-'], {
      env: processEnv({ STORE_BASE_URL: box.url, STORE_API_KEY: KEY }),
      stdio: [folder, 'pipe', 'pipe'],
    });
    closeSync(folder);
    expect(await collect(child)).toEqual({
      code: 2,
      signal: null,
      stdout: '',
      stderr: 'error: cannot read stdin: it is a directory; nothing was sent\n',
    });
    expect(box.posts()).toBe(0);
  });

  it('refuses to resume from stdin another file than the import began with: exit 2, nothing sent', async () => {
    const dir = tempDir();
    const began = join(dir, 'a.ndjson');
    const other = join(dir, 'b.ndjson');
    writeFileSync(began, '{"name":"a1","categoryId":1}\n{"name":"a2","categoryId":1}\n');
    writeFileSync(other, '{"name":"b1","categoryId":1}\n');
    const journal = join(dir, 'stdin.journal');
    const { size, mtimeMs } = statSync(began);
    // What `--file - < a.ndjson`, killed after its first input, left.
    writeFileSync(
      journal,
      `store pets add journal 1\nskip 0\ninput ${size} ${Math.trunc(mtimeMs)}\ns 1\nr 1\n`,
    );
    const server = await sandbox();
    const stdin = openSync(other, 'r');
    const child = spawn(
      process.execPath,
      [BIN, 'pets', 'add', '--file', '-', '--journal', journal, '--resume'],
      {
        env: processEnv({ STORE_BASE_URL: server.url, STORE_API_KEY: KEY }),
        stdio: [stdin, 'pipe', 'pipe'],
      },
    );
    closeSync(stdin);
    afterThisTest(() => child.kill('SIGKILL'));
    expect(await collect(child)).toMatchObject({
      code: 2,
      stdout: '',
      stderr:
        `error: --resume: stdin is not the file the import began with (journal ${journal})\n` +
        'hint: resuming would skip or send the wrong inputs; put the file back as it was, or delete the journal and use --skip\n',
    });
    expect(server.posts()).toBe(0);
  });
});
