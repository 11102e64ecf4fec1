// The journal of `pets add --file` and `--resume`: what a run cut short at any moment (kill -9)
// left, and how the next run continues from it without sending an input twice.
import { execFileSync, spawnSync } from 'node:child_process';
import {
  existsSync,
  readdirSync,
  readFileSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { hostname } from 'node:os';
import { basename, join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { defaultJournalPath, destinationOf, parseJournal } from '../../src/bulk/journal.js';
import { baseEnv, run, tempDir } from '../helpers/cli.js';
import { faultServer, reply } from '../helpers/fault-server.js';

const PET_LINE = (i: number) => `{"name":"p${i}","categoryId":1}`;
const linesOf = (count: number) =>
  `${Array.from({ length: count }, (_, k) => PET_LINE(k + 1)).join('\n')}\n`;

/** A server that creates each animal with the number in its name as its id. */
async function creatingServer() {
  const server = await faultServer((_req, res, n) => {
    const body = JSON.parse(server.seen[n - 1]?.body ?? '{}');
    reply(res, 201, JSON.stringify({ id: Number(body.name.slice(1)), ...body }));
  });
  return server;
}

const HEADER = 'store pets add journal 1\n';

describe('parseJournal', () => {
  it('reads how far the reports went and what was sent after them; a line cut short is ignored', () => {
    expect(parseJournal(`${HEADER}skip 0\ns 1\ns 2\nr 1\ns 3\nr 2\ns 4\nr 3\ns 5\nr `)).toEqual({
      reportedThrough: 3,
      sentUnreported: new Set([4, 5]),
      ended: false,
    });
    expect(parseJournal(`${HEADER}skip 7\ns 8\nend\n`)).toEqual({
      reportedThrough: 7,
      sentUnreported: new Set([8]),
      ended: true,
    });
    // Resumed after an end: no longer ended.
    expect(parseJournal(`${HEADER}skip 0\nend\ns 1\n`)?.ended).toBe(false);
    expect(parseJournal('{"name":"p1"}\n')).toBeUndefined();
    expect(parseJournal(`${HEADER}skip 0\ninput 9 1\nto https://api.example/v1\ns 1\n`)).toEqual({
      reportedThrough: 0,
      sentUnreported: new Set([1]),
      ended: false,
      input: '9 1',
      to: 'https://api.example/v1',
    });
  });

  it('reads the inputs a stop did not send as not reported, until a resumed run sends them', () => {
    // Stopped at input 3 (a 401): 3 and 4 were reported as not sent; --failed held 40 bytes.
    const stopped = `${HEADER}skip 0\ns 1\ns 2\nr 1\nr 2\nnotsent 3 40\nr 3\nr 4\nend\n`;
    expect(parseJournal(stopped)).toEqual({
      reportedThrough: 2,
      sentUnreported: new Set(),
      ended: true,
      notSent: { from: 3, failedBytes: 40 },
    });
    // Without a --failed file: no bytes.
    expect(parseJournal(`${HEADER}skip 0\nnotsent 1\nr 1\nr 2\nend\n`)?.notSent).toEqual({
      from: 1,
    });
    // Resumed from 2, then killed after sending 3: 3 is uncertain, 4 still to send.
    expect(parseJournal(`${stopped}resume 2\ns 3\n`)).toEqual({
      reportedThrough: 2,
      sentUnreported: new Set([3]),
      ended: false,
    });
    expect(parseJournal(`${stopped}resume 2\ns 3\nr 3\n`)?.reportedThrough).toBe(3);
  });

  it('is kept in the cache folder, named after the input file and where it goes', () => {
    const env = { XDG_CACHE_HOME: '/cache', HOME: '/home/u' };
    const a = defaultJournalPath(env, '/data/animals.ndjson', 'https://api.example/v1', 'linux');
    expect(a).toMatch(/^\/cache\/store\/journals\/animals\.ndjson-[0-9a-f]{16}\.journal$/);
    // Another server, another journal; the same file and server, the same one.
    expect(
      defaultJournalPath(env, '/data/animals.ndjson', 'http://127.0.0.1:4010/v1', 'linux'),
    ).not.toBe(a);
    expect(defaultJournalPath(env, '/data/animals.ndjson', 'https://api.example/v1', 'linux')).toBe(
      a,
    );
    expect(defaultJournalPath({ HOME: '/home/u' }, '/d/x y.ndjson', 'u', 'linux')).toMatch(
      /^\/home\/u\/\.cache\/store\/journals\/x_y\.ndjson-[0-9a-f]{16}\.journal$/,
    );
    expect(defaultJournalPath({}, '/d/x.ndjson', 'u', 'linux')).toBeUndefined();
  });

  it('is one journal for one file to one place, however they are spelled', () => {
    const dir = tempDir();
    const file = join(dir, 'animals.ndjson');
    writeFileSync(file, '');
    symlinkSync(file, join(dir, 'link.ndjson'));
    const env = { XDG_CACHE_HOME: '/cache' };
    const url = 'https://api.example/v1';
    const journal = defaultJournalPath(env, file, url, 'linux');
    expect(journal).toMatch(/\/animals\.ndjson-[0-9a-f]{16}\.journal$/);
    for (const [other, to] of [
      [join(dir, 'link.ndjson'), url],
      [join(dir, '..', basename(dir), './animals.ndjson'), url],
      [file, 'https://API.example/v1/'],
    ] as const) {
      expect(defaultJournalPath(env, other, to, 'linux')).toBe(journal);
    }
    expect(destinationOf('https://API.example/v1//')).toBe('https://api.example/v1');
  });
});

describe('pets add --file --resume', () => {
  it('after a kill: skips what was reported, holds what was sent without an answer as uncertain (never sent again), sends the rest', async () => {
    const server = await creatingServer();
    const dir = tempDir();
    const input = join(dir, 'animals.ndjson');
    writeFileSync(input, linesOf(5));
    const journal = join(dir, 'import.journal');
    const failed = join(dir, 'retry.ndjson');
    // What a run killed (kill -9) left: inputs 1-2 reported, 3-4 sent and never reported, and
    // the journal's lock, of a process that is gone.
    writeFileSync(journal, `${HEADER}skip 0\ns 1\ns 2\nr 1\ns 3\nr 2\ns 4\n`);
    const killed = spawnSync(process.execPath, ['-e', '']).pid;
    const token = '0123456789abcdef';
    writeFileSync(
      `${journal}.lock`,
      JSON.stringify({ pid: killed, host: hostname(), time: Date.now(), token }),
    );
    writeFileSync(failed, '{"name":"earlier"}\n');
    const env = baseEnv({ STORE_API_KEY: 'k', STORE_BASE_URL: server.url });
    const args = ['pets', 'add', '--file', input, '--journal', journal, '--failed', failed];

    // Run again as it was: refused, nothing sent, the way on said.
    const plain = await run(args, { env });
    expect(plain).toEqual({
      code: 2,
      stdout: '',
      stderr:
        `error: an import of ${input} was cut short before it could say how far it got (journal ${journal})\n` +
        'hint: continue it with --resume (inputs it may have sent are not sent again), or delete the journal to send every input again\n',
      prompts: [],
    });
    expect(server.seen).toEqual([]);

    const resumed = await run([...args, '--resume', '--concurrency', '1'], { env });
    expect(server.seen.map((request) => request.body)).toEqual([PET_LINE(5)]);
    const uncertain = 'sent before the import was cut short, and no answer was recorded';
    expect(resumed).toEqual({
      code: 1,
      stdout: 'ID\tNAME\tCATEGORY\tSTATUS\n5\tp5\t1\t\n',
      stderr:
        `error: input 3 (line 3): ${uncertain}\nhint: the animal may have been created\n` +
        `error: input 4 (line 4): ${uncertain}\n` +
        `1 created, 0 failed, 2 uncertain (inputs 3-4), 0 not sent; failed and not sent in ${failed}; uncertain in ${failed}.uncertain: they may have been created, and adding them again may duplicate them\n`,
      prompts: [],
    });
    // The retry file of the run resumed is kept, the uncertain ones apart; every input is
    // answered now: the journal is gone.
    expect(readFileSync(failed, 'utf8')).toBe('{"name":"earlier"}\n');
    expect(readFileSync(`${failed}.uncertain`, 'utf8')).toBe(`${PET_LINE(3)}\n${PET_LINE(4)}\n`);
    expect(existsSync(journal)).toBe(false);
    expect(readdirSync(dir).sort()).toEqual([
      'animals.ndjson',
      'retry.ndjson',
      'retry.ndjson.uncertain',
    ]);
  });

  it('refuses a second import with the journal of one still running (plain or --resume): exit 1, nothing sent', async () => {
    let answerFirst: (() => void) | undefined;
    const server = await faultServer((_req, res, n) => {
      const body = JSON.parse(server.seen[n - 1]?.body ?? '{}');
      const answer = () =>
        reply(res, 201, JSON.stringify({ id: Number(body.name.slice(1)), ...body }));
      if (n === 1) answerFirst = answer;
      else answer();
    });
    const dir = tempDir();
    const input = join(dir, 'animals.ndjson');
    writeFileSync(input, linesOf(2));
    const journal = join(dir, 'import.journal');
    const env = baseEnv({ STORE_API_KEY: 'k', STORE_BASE_URL: server.url });
    const args = ['pets', 'add', '--file', input, '--journal', journal, '--concurrency', '1'];
    const first = run(args, { env });
    // The first import waits for its first answer, holding the journal.
    await vi.waitFor(() => expect(answerFirst).toBeDefined());
    for (const more of [[], ['--resume']]) {
      const second = await run([...args, ...more], { env });
      expect({ ...second, stderr: second.stderr.replace(/for \d+ s\)/, 'for N s)') }).toEqual({
        code: 1,
        stdout: '',
        stderr:
          `error: another import is running with the journal ${journal} (store process ${process.pid}, for N s); nothing was sent\n` +
          `hint: wait for it to end, or give this import a --journal of its own; if no store is importing, remove ${journal}.lock\n`,
        prompts: [],
      });
    }
    expect(server.seen.map((request) => request.body)).toEqual([PET_LINE(1)]);
    answerFirst?.();
    expect((await first).code).toBe(0);
    expect(server.seen.map((request) => request.body)).toEqual([PET_LINE(1), PET_LINE(2)]);
    // Done: the journal and its lock are gone, and the next import runs.
    expect(readdirSync(dir)).toEqual(['animals.ndjson']);
    expect((await run(args, { env })).code).toBe(0);
  });

  it('continues after a Ctrl-C where it stopped, and a plain run may start over then', async () => {
    const server = await creatingServer();
    const dir = tempDir();
    const input = join(dir, 'animals.ndjson');
    writeFileSync(input, linesOf(3));
    const journal = join(dir, 'import.journal');
    writeFileSync(journal, `${HEADER}skip 0\ns 1\nr 1\nend\n`);
    const env = baseEnv({ STORE_API_KEY: 'k', STORE_BASE_URL: server.url });
    const result = await run(
      ['pets', 'add', '--file', input, '--journal', journal, '--resume', '--json'],
      {
        env,
      },
    );
    expect(server.seen.map((request) => request.body).sort()).toEqual([PET_LINE(2), PET_LINE(3)]);
    expect(result).toEqual({
      code: 0,
      stdout: '{"id":2,"name":"p2","categoryId":1}\n{"id":3,"name":"p3","categoryId":1}\n',
      stderr: '{"summary":{"created":2,"failed":0,"uncertain":0,"notSent":0}}\n',
      prompts: [],
    });
  });

  it('resumes an import a rejected key stopped: the inputs it did not send are sent, --failed keeps only what failed', async () => {
    let accepting = false;
    const server = await faultServer((_req, res, n) => {
      if (!accepting) {
        reply(res, 401, '{"code":"unauthorized","message":"bad key","status":401}');
        return;
      }
      const body = JSON.parse(server.seen[n - 1]?.body ?? '{}');
      reply(res, 201, JSON.stringify({ id: Number(body.name.slice(1)), ...body }));
    });
    const dir = tempDir();
    const input = join(dir, 'animals.ndjson');
    writeFileSync(input, linesOf(4));
    const failed = join(dir, 'failed.ndjson');
    const journal = join(dir, 'import.journal');
    const argv = ['pets', 'add', '--file', input, '--journal', journal, '--failed', failed];
    const env = baseEnv({ STORE_API_KEY: 'k', STORE_BASE_URL: server.url });
    const first = await run([...argv, '--concurrency', '1', '--json'], { env });
    expect(first.code).toBe(4);
    // Input 1 was refused; 2 to 4 were not sent.
    expect(server.seen).toHaveLength(1);
    expect(readFileSync(failed, 'utf8')).toBe(linesOf(4));
    accepting = true;
    const resumed = await run([...argv, '--resume', '--json'], { env });
    expect(resumed).toEqual({
      code: 0,
      stdout: [2, 3, 4].map((i) => `{"id":${i},"name":"p${i}","categoryId":1}\n`).join(''),
      // The file still holds input 1, from the first run.
      stderr: `{"summary":{"created":3,"failed":0,"uncertain":0,"notSent":0,"failedFile":"${failed}"}}\n`,
      prompts: [],
    });
    expect(server.seen.slice(1).map((request) => request.body)).toEqual([2, 3, 4].map(PET_LINE));
    // Input 1 failed (its 401 was an answer): it alone is left to send again.
    expect(readFileSync(failed, 'utf8')).toBe(`${PET_LINE(1)}\n`);
    expect(existsSync(journal)).toBe(false);
  });

  it('records each input sent and reported as the import goes, in the cache folder by default, and ends it', async () => {
    const server = await faultServer(() => {}); // never answers
    const dir = tempDir();
    const input = join(dir, 'animals.ndjson');
    writeFileSync(input, linesOf(2));
    const cache = tempDir();
    const env = baseEnv({ STORE_API_KEY: 'k', STORE_BASE_URL: server.url, XDG_CACHE_HOME: cache });
    const controller = new AbortController();
    const pending = run(
      ['pets', 'add', '--file', input, '--concurrency', '1', '--timeout', '0.5'],
      {
        env,
        signal: controller.signal,
      },
    );
    while (server.seen.length < 1) await new Promise((resolve) => setTimeout(resolve, 10));
    const journal = defaultJournalPath(env, input, server.url) as string;
    const { size, mtimeMs } = statSync(input);
    const begun = `${HEADER}skip 0\ninput ${size} ${Math.trunc(mtimeMs)}\nto ${server.url}\n`;
    // Written before the request left.
    expect(readFileSync(journal, 'utf8')).toBe(`${begun}s 1\n`);
    controller.abort();
    expect((await pending).code).toBe(130);
    expect(readFileSync(journal, 'utf8')).toBe(`${begun}s 1\nr 1\nend\n`);
  });

  it('keeps no journal for a file that is no JSON or NDJSON at all: once mended, it runs', async () => {
    const server = await creatingServer();
    const dir = tempDir();
    const input = join(dir, 'animals.json');
    // A JSON export cut short: its closing bracket is missing.
    writeFileSync(input, `[${PET_LINE(1)},\n${PET_LINE(2)}\n`);
    const env = baseEnv({
      STORE_API_KEY: 'k',
      STORE_BASE_URL: server.url,
      XDG_CACHE_HOME: tempDir(),
    });
    const refused = await run(['pets', 'add', '--file', input], { env });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toBe(
      'error: --file is not JSON or NDJSON (expected a JSON object, a JSON array or NDJSON); nothing was sent\n',
    );
    expect(server.seen).toEqual([]);
    expect(existsSync(defaultJournalPath(env, input, server.url) as string)).toBe(false);
    writeFileSync(input, `[${PET_LINE(1)},\n${PET_LINE(2)}]\n`);
    const mended = await run(['pets', 'add', '--file', input], { env });
    expect(mended.code).toBe(0);
    expect(server.seen.map((request) => request.body)).toEqual([PET_LINE(1), PET_LINE(2)]);
  });

  it('leaves no journal behind a run that ends before it begins (no key): the next one runs', async () => {
    const server = await creatingServer();
    const dir = tempDir();
    const input = join(dir, 'animals.ndjson');
    writeFileSync(input, linesOf(1));
    const env = baseEnv({ STORE_BASE_URL: server.url, XDG_CACHE_HOME: tempDir() });
    const journal = defaultJournalPath(env, input, server.url) as string;
    const keyless = await run(['pets', 'add', '--file', input], { env });
    expect(keyless.code).toBe(4);
    expect(existsSync(journal)).toBe(false);
    const keyed = await run(['pets', 'add', '--file', input], {
      env: { ...env, STORE_API_KEY: 'k' },
    });
    expect(keyed.code).toBe(0);
    expect(server.seen.map((request) => request.body)).toEqual([PET_LINE(1)]);
  });

  it('goes on without a journal, saying so, when the cache folder cannot be written', async () => {
    const server = await creatingServer();
    const dir = tempDir();
    const input = join(dir, 'animals.ndjson');
    writeFileSync(input, linesOf(1));
    // A file where the cache folder should be: nothing can be made below it.
    const cache = join(dir, 'not-a-folder');
    writeFileSync(cache, '');
    const env = baseEnv({ STORE_API_KEY: 'k', STORE_BASE_URL: server.url, XDG_CACHE_HOME: cache });
    const result = await run(['pets', 'add', '--file', input, '--json'], { env });
    const journal = defaultJournalPath(env, input, server.url);
    expect(result).toEqual({
      code: 0,
      stdout: '{"id":1,"name":"p1","categoryId":1}\n',
      stderr:
        `{"warning":{"message":"cannot write --journal ${journal}: not a directory; no journal is kept, so an import killed outright cannot be resumed with --resume"}}\n` +
        '{"summary":{"created":1,"failed":0,"uncertain":0,"notSent":0}}\n',
      prompts: [],
    });
  });

  /** An import of three animals to `to`, killed after its first was reported: its journal as
   * left, and a --resume of it against the test's server. */
  async function resumeKilled(change: (input: string) => void, to?: string) {
    const server = await creatingServer();
    const dir = tempDir();
    const input = join(dir, 'animals.ndjson');
    writeFileSync(input, linesOf(3));
    const journal = join(dir, 'import.journal');
    const { size, mtimeMs } = statSync(input);
    const sentTo = to === undefined ? '' : `to ${to}\n`;
    const killed = `${HEADER}skip 0\ninput ${size} ${Math.trunc(mtimeMs)}\n${sentTo}s 1\nr 1\n`;
    writeFileSync(journal, killed);
    change(input);
    const env = baseEnv({ STORE_API_KEY: 'k', STORE_BASE_URL: server.url });
    const result = await run(['pets', 'add', '--file', input, '--journal', journal, '--resume'], {
      env,
    });
    expect(server.seen).toEqual([]);
    expect(readFileSync(journal, 'utf8')).toBe(killed);
    return { result, input, journal, url: server.url };
  }

  it('refuses to resume an import of a file that changed since it began: exit 2, nothing sent', async () => {
    // A line inserted at the top: input 2 is now what input 1 was.
    const { result, input, journal } = await resumeKilled((file) =>
      writeFileSync(file, `{"name":"new","categoryId":1}\n${linesOf(3)}`),
    );
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr:
        `error: --resume: ${input} changed since the import began (journal ${journal})\n` +
        'hint: resuming would skip or send the wrong inputs; put the file back as it was, or delete the journal and use --skip\n',
      prompts: [],
    });
  });

  it('refuses to resume an import that was sending to another server: exit 2, nothing sent', async () => {
    const staging = 'https://staging.example/v1';
    const { result, journal, url } = await resumeKilled(() => {}, staging);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr:
        `error: --resume: the import in journal ${journal} was sending to ${staging}, not to ${url}\n` +
        'hint: resume it with the profile (or STORE_BASE_URL) it began with; the inputs it reported are there\n',
      prompts: [],
    });
  });

  it('refuses --resume without a journal, and with --skip: exit 2, nothing sent', async () => {
    const server = await creatingServer();
    const dir = tempDir();
    const input = join(dir, 'animals.ndjson');
    writeFileSync(input, linesOf(1));
    const journal = join(dir, 'none.journal');
    const env = baseEnv({ STORE_API_KEY: 'k', STORE_BASE_URL: server.url });
    expect(
      await run(['pets', 'add', '--file', input, '--journal', journal, '--resume'], { env }),
    ).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: --resume: no import of ${input} to resume (no journal at ${journal})\n`,
      prompts: [],
    });
    expect(
      await run(['pets', 'add', '--file', '-', '--resume'], { env, stdin: linesOf(1) }),
    ).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: --resume needs --journal with --file - (stdin): no journal is kept for it otherwise\n',
      prompts: [],
    });
    expect(await run(['pets', 'add', '--file', input, '--resume', '--skip', '3'], { env })).toEqual(
      {
        code: 2,
        stdout: '',
        stderr:
          'error: --resume cannot be combined with --skip: it continues where the journal says\n',
        prompts: [],
      },
    );
    expect(server.seen).toEqual([]);
  });

  it.runIf(process.platform !== 'win32')(
    'refuses a --journal that is a FIFO, at once: exit 2, nothing sent',
    async () => {
      const server = await creatingServer();
      const dir = tempDir();
      const fifo = join(dir, 'journal.fifo');
      execFileSync('mkfifo', [fifo]);
      const env = baseEnv({ STORE_API_KEY: 'k', STORE_BASE_URL: server.url });
      const result = await run(['pets', 'add', '--file', '-', '--journal', fifo], {
        env,
        stdin: linesOf(1),
      });
      expect(result).toEqual({
        code: 2,
        stdout: '',
        stderr: `error: cannot read --journal ${fifo}: it is a FIFO (named pipe)\n`,
        prompts: [],
      });
      expect(server.seen).toEqual([]);
    },
  );
});
