// Runs the CLI in-process, as main() would run in a real process, over in-memory
// streams with any TTY setting. HTTP goes through nock (see ./http.ts).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { type AddressInfo, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable, Writable } from 'node:stream';
import type { Env } from '../../src/env.js';
import { CancelledError } from '../../src/errors.js';
import { createIO, type IOStreams } from '../../src/io.js';
import { type MainDeps, main } from '../../src/main.js';
import { readAll } from '../../src/reading.js';
import { colorAllowed, statusLineAllowed } from '../../src/terminal.js';
import { afterThisTest } from './cleanup.js';
import { testKeyring } from './keyring.js';

export interface RunOptions {
  env?: Record<string, string | undefined>;
  /** What stdin holds; stdin is a pipe unless tty.stdin is set. A stream is used as it is
   * (a PassThrough left open is a pipe that stays silent). */
  stdin?: string | Buffer | Readable;
  /** stdout takes this many writes, then fails each with this error code (`| head -1`: EPIPE;
   * a full disk: ENOSPC). */
  stdoutFails?: { afterWrites: number; code: string };
  /** Called with all of stdout so far after each write (a test of streamed output). */
  onStdout?: (text: string) => void;
  /** true: stdin, stdout and stderr are all terminals. */
  tty?: boolean | { stdin?: boolean; stdout?: boolean; stderr?: boolean };
  /** The answer typed at a hidden prompt (auth login on a terminal). */
  typed?: string;
  /** The answers typed at visible prompts, in order; null, or none left, is Ctrl-C there. */
  answers?: (string | null)[];
  signal?: AbortSignal;
  /** Receives each retry's wait, in ms. Retries never really wait in-process: the delays are
   * recorded here instead, so a test can assert them. */
  sleeps?: number[];
  /** Replaces how retries wait (a test of Ctrl-C during a wait needs a real one). */
  timing?: MainDeps['timing'];
  /** Cells per line of the terminal (stdout and stderr); 80 when not given. */
  columns?: number;
  /** How long a request waits before the spinner shows; when not given, a minute: a loaded
   * machine must not put a spinner into the stderr of a test that is not about it (a process
   * waits 1 s; test/render/status.test.ts tests that). */
  spinnerDelayMs?: number;
  /** stdout as bytes: decoded as latin1, one character per byte (bytes that are not UTF-8). */
  stdoutBytes?: boolean;
  /** Stands for the restart under V8 flags that only a process can do (src/restart.ts). */
  restartWithV8Flags?: MainDeps['restartWithV8Flags'];
  /** Stands for the system keyring; by default the test's own in memory (testKeyring()). */
  keyring?: MainDeps['keyring'];
}

export interface RunResult {
  code: number;
  stdout: string;
  stderr: string;
  /** Questions asked at prompts, hidden or not. */
  prompts: string[];
}

class Sink extends Writable {
  private readonly chunks: Buffer[] = [];
  private writes = 0;

  constructor(
    private readonly encoding: BufferEncoding = 'utf8',
    private readonly fails?: RunOptions['stdoutFails'],
    private readonly onWrite?: (text: string) => void,
  ) {
    super();
  }

  /** What was written, decoded as a whole (a character may span two writes). */
  get text(): string {
    return Buffer.concat(this.chunks).toString(this.encoding);
  }

  override _write(chunk: Buffer, _enc: BufferEncoding, done: (error?: Error) => void): void {
    this.writes += 1;
    if (this.fails && this.writes > this.fails.afterWrites) {
      done(Object.assign(new Error(`write ${this.fails.code}`), { code: this.fails.code }));
      return;
    }
    this.chunks.push(Buffer.from(chunk));
    this.onWrite?.(this.text);
    done();
  }
}

export function testIO(
  options: RunOptions,
  env: Env,
): { io: IOStreams; out: Sink; err: Sink; prompts: string[] } {
  const tty =
    typeof options.tty === 'object'
      ? options.tty
      : { stdin: options.tty, stdout: options.tty, stderr: options.tty };
  const out = new Sink(
    options.stdoutBytes ? 'latin1' : 'utf8',
    options.stdoutFails,
    options.onStdout,
  );
  const err = new Sink();
  const given = options.stdin;
  const stdin =
    given instanceof Readable
      ? given
      : Readable.from(given === undefined ? [] : [Buffer.from(given)]);
  const prompts: string[] = [];
  const answers = [...(options.answers ?? [])];
  const columns = () => options.columns ?? 80;
  // The real IOStreams over in-memory streams: status line and write errors as in a process.
  const io: IOStreams = createIO({
    stdin,
    stdout: out,
    stderr: err,
    stdinIsTTY: tty.stdin === true,
    stdoutIsTTY: tty.stdout === true,
    stderrIsTTY: tty.stderr === true,
    colorOut: colorAllowed(tty.stdout === true, env),
    colorErr: colorAllowed(tty.stderr === true, env),
    statusLine: statusLineAllowed(tty.stderr === true, env),
    columns,
    stderrColumns: columns,
    readStdin: (limit, signal) => readAll(stdin, limit, signal),
    spinnerDelayMs: options.spinnerDelayMs ?? 60_000,
    promptSecret: async (question) => {
      prompts.push(question);
      return options.typed ?? '';
    },
    prompt: async (question) => {
      prompts.push(question);
      const answer = answers.shift();
      if (answer === undefined || answer === null) throw new CancelledError();
      return answer;
    },
  });
  return { io, out, err, prompts };
}

/** What any API command gives with no key for the default profile: exit 4, one line, nothing
 * sent (the contract's login hint). */
export const NO_KEY = {
  code: 4,
  stdout: '',
  stderr:
    'error: no API key for profile production\nhint: run `store auth login` or set STORE_API_KEY\n',
  prompts: [],
};

/** A fresh, empty config folder, removed after the test. */
export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'store-test-'));
  afterThisTest(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/** Base environment: an empty config folder, no colour hints, no proxies. */
export function baseEnv(
  extra: Record<string, string | undefined> = {},
): Record<string, string | undefined> {
  return { STORE_CONFIG_DIR: tempDir(), TERM: 'xterm-256color', ...extra };
}

export async function run(argv: string[], options: RunOptions = {}): Promise<RunResult> {
  const env = options.env ?? baseEnv();
  const { io, out, err, prompts } = testIO(options, env);
  const code = await main(argv, {
    io,
    env,
    signal: options.signal ?? new AbortController().signal,
    restartWithV8Flags: options.restartWithV8Flags,
    keyring: options.keyring ?? testKeyring().load,
    timing: {
      sleep: async (ms) => {
        options.sleeps?.push(ms);
      },
      // The middle of the jitter range: backoff delays are exact in tests.
      random: () => 0.5,
      ...options.timing,
    },
  });
  return { code, stdout: out.text, stderr: err.text, prompts };
}

/** A fresh config folder (not created yet when `nested`), its env, and its config.json path. */
export function configSetup(extra: Record<string, string | undefined> = {}, nested = false) {
  const dir = nested ? join(tempDir(), 'nested', 'store') : tempDir();
  const env = baseEnv({ STORE_CONFIG_DIR: dir, ...extra });
  return { dir, env, file: join(dir, 'config.json') };
}

export function readConfig(file: string): unknown {
  return JSON.parse(readFileSync(file, 'utf8'));
}

/** A loopback port that was just free: nothing listens there. */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Writes config.json as the CLI would (0600): a readable file gets a warning on stderr. */
export function writeConfigFile(file: string, text: string): void {
  writeFileSync(file, text, { mode: 0o600 });
}
