// The top of the program: parse, run, and turn whatever was thrown into one message on
// stderr and the contract's exit code. Nothing below this file sets the exit code.
import type { Command } from 'commander';
import { type ScannedArgv, scanArgv } from './argv.js';
import type { Context, ContextDeps, GlobalOptions } from './context.js';
import type { Env } from './env.js';
import {
  asCliError,
  CancelledError,
  CliError,
  ExitCode,
  errorLines,
  FlagError,
  SilentExit,
  toReport,
} from './errors.js';
import { type IOStreams, systemIO, writeErrorsArrived } from './io.js';
import { stringifyJson } from './json.js';
import { describeWriteError } from './output-stream.js';
import { untilCtrlC } from './reading.js';
import { sanitizeLines } from './render/sanitize.js';
import { restartWithV8Flags } from './restart.js';
import { HANDLED_SIGNALS } from './signals.js';
import {
  DEFAULT_TIMEOUT_SECONDS,
  MAX_TIMEOUT_SECONDS,
  TIMEOUT_RULE,
  timeoutMs,
} from './timeout.js';
import { version } from './version.js';

export interface MainDeps extends ContextDeps {
  io: IOStreams;
  env: Env;
  signal: AbortSignal;
}

interface RawGlobals {
  profile?: string;
  /** true, or the text of `--json=FIELDS` (src/commands/json-flag.ts writes every --json so). */
  json?: boolean | string;
  jq?: string;
  color?: boolean;
  debug?: boolean;
  timeout?: string;
}

export function globalOptions(raw: RawGlobals, env: Env): GlobalOptions {
  // An empty STORE_TIMEOUT is unset, as every other STORE_ variable is.
  const timeoutText = raw.timeout ?? (env.STORE_TIMEOUT || undefined);
  const source = raw.timeout !== undefined ? '--timeout' : 'STORE_TIMEOUT';
  let timeoutSeconds = DEFAULT_TIMEOUT_SECONDS;
  if (timeoutText !== undefined) {
    timeoutSeconds = Number(timeoutText);
    // Seconds in decimal (an exponent allowed): Number() would also read `0x10` as 16.
    const decimal = /^\s*(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?\s*$/i.test(timeoutText);
    const valid = decimal && timeoutSeconds > 0;
    if (!valid || !(timeoutSeconds <= MAX_TIMEOUT_SECONDS)) {
      throw new FlagError(`${source} must be ${TIMEOUT_RULE} (got ${JSON.stringify(timeoutText)})`);
    }
  }
  // commander reads `-p=sb` as the value "=sb" (`--profile=sb` it splits itself); no profile
  // name starts with "=", so `-p=sb` means `-p sb`.
  const profile = raw.profile?.startsWith('=') ? raw.profile.slice(1) : raw.profile;
  // `-p "$PROFILE"` with the variable unset must not quietly mean the default profile (a
  // logout or a write to production): an empty name is a usage error, as for `profile use`.
  if (profile === '') throw new FlagError('--profile needs a profile name (got "")');
  const jsonFields = typeof raw.json === 'string' ? fieldList(raw.json) : undefined;
  if (raw.jq !== undefined && raw.jq.trim() === '') {
    throw new FlagError('--jq needs a jq expression (got "")');
  }
  return {
    profile,
    json: raw.json !== undefined || raw.jq !== undefined,
    ...(jsonFields && { jsonFields }),
    ...(raw.jq !== undefined && { jq: raw.jq, jqEnv: jqEnvironment(env) }),
    color: raw.color !== false,
    debug: raw.debug === true || debugFromEnv(env),
    timeoutMs: timeoutMs(timeoutSeconds),
  };
}

/** What `$ENV` and `env` give a --jq filter: the environment, as jq has it, but for the key
 * in STORE_API_KEY, which `auth token` alone prints. */
function jqEnvironment(env: Env): Env {
  const { STORE_API_KEY: _key, ...rest } = env;
  return rest;
}

/** `--json id, name`'s names; none (every field) for `--json` alone. */
function fieldList(text: string): string[] | undefined {
  if (text.trim() === '') return undefined;
  const names = text.split(',').map((name) => name.trim());
  if (names.includes('')) {
    throw new FlagError(
      `--json takes field names separated by commas (got ${JSON.stringify(text)})`,
    );
  }
  return [...new Set(names)];
}

/** STORE_DEBUG=1 (or true) turns --debug on. */
function debugFromEnv(env: Env): boolean {
  return env.STORE_DEBUG === '1' || env.STORE_DEBUG === 'true';
}

/** Runs one invocation and returns its exit code, output that could not be written included. */
export async function main(argv: readonly string[], deps: MainDeps): Promise<number> {
  const chosen: { json?: boolean; scan?: ScannedArgv } = {};
  const code = await runInvocation(argv, deps, chosen);
  return outputWritten(deps.io, code, chosen.json ?? chosen.scan?.json ?? false, deps.signal);
}

async function runInvocation(
  argv: readonly string[],
  deps: MainDeps,
  chosen: { json?: boolean; scan?: ScannedArgv },
): Promise<number> {
  const { io, env, signal } = deps;
  // Answered before the program is loaded: these run often and need none of it.
  if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
    io.out(`${version()}\n`);
    return ExitCode.ok;
  }
  if (argv.length === 2 && argv[0] === '__complete' && argv[1] === 'profiles') {
    const { profileCompletions } = await import('./completion/profiles.js');
    io.out(profileCompletions(env));
    return ExitCode.ok;
  }
  // The command tree, zod and the renderer, loaded only when a command runs.
  const [{ buildProgram, globalValueFlags, loadCommands }, { createContext }] = await Promise.all([
    import('./program.js'),
    import('./context.js'),
  ]);
  const scan = scanArgv(argv, globalValueFlags());
  chosen.scan = scan;
  let ctx: Context | undefined;
  const contextFor = (command: Command): Context => {
    if (!ctx) {
      const options = globalOptions(command.optsWithGlobals<RawGlobals>(), env);
      io.colorOut &&= options.color && !options.json;
      io.colorErr &&= options.color;
      chosen.json = options.json;
      ctx = createContext(io, env, options, signal, deps);
    }
    return ctx;
  };
  const [program, { normalizeJsonFlag }] = await Promise.all([
    loadCommands(scan).then((commands) => buildProgram(io, contextFor, commands)),
    import('./commands/json-flag.js'),
  ]);
  if (argv.length === 0) {
    program.outputHelp();
    return ExitCode.ok;
  }
  try {
    await program.parseAsync(normalizeJsonFlag(argv, program), { from: 'user' });
    return ExitCode.ok;
  } catch (error) {
    const json = ctx?.options.json ?? scan.json;
    const debug = ctx?.options.debug ?? (scan.debug || debugFromEnv(env));
    return report(io, toCliError(error), { json, debug, original: error });
  }
}

/** commander's errors, told by their code so that this file need not load commander. */
function isCommanderError(error: unknown): error is Error & { code: string } {
  const code = (error as { code?: unknown } | null)?.code;
  return error instanceof Error && typeof code === 'string' && code.startsWith('commander.');
}

function toCliError(error: unknown): CliError | number {
  if (isCommanderError(error)) {
    // Its class's own name, for a --debug trace: the bundle's class names are minified.
    error.name = 'CommanderError';
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version') {
      return ExitCode.ok;
    }
    // Asked for (`store pets help list`): success; shown because a command was incomplete
    // (`store pets`): a usage error. commander tells them apart by its own exit code.
    if (error.code === 'commander.help') {
      return (error as { exitCode?: number }).exitCode === 0 ? ExitCode.ok : ExitCode.usage;
    }
    // Those it finds while parsing are told in store's words by StoreCommand; any other
    // (one commander adds in a later version) keeps commander's text, as one line.
    return new FlagError(error.message.replace(/^error: /, '').replace(/\s*\n\s*/g, ' '));
  }
  return asCliError(error);
}

function report(
  io: IOStreams,
  error: CliError | number,
  how: { json: boolean; debug: boolean; original: unknown },
): number {
  if (typeof error === 'number') return error;
  // Ctrl-C is told by nothing but its exit code, unless it may have left something behind.
  if (error instanceof SilentExit) return error.exitCode;
  if (error instanceof CancelledError && error.note === undefined) return error.exitCode;
  // One JSON object a line, on a terminal too: not wrapped to its width.
  if (how.json) io.err(`${stringifyJson({ error: toReport(error) })}\n`, true);
  else io.err(errorLines(error));
  // A stack trace helps only with a bug: an API or usage error is told in full above.
  const internal = !(how.original instanceof CliError);
  if (how.debug && internal && how.original instanceof Error && how.original.stack) {
    io.err(`${sanitizeLines(how.original.stack)}\n`, true);
  }
  return error.exitCode;
}

/**
 * Waits until all output has reached the system (a slow reader holds the process, not the
 * data), then says what could not be written. `store … | head -1`: the reader left, which is
 * no failure (EPIPE). A full disk, an I/O error or a pipe that refused more is: one line (a
 * JSON one under --json, as for any error), and exit 1 unless the command failed on its own
 * already. A failed stderr cannot carry that line: it is told by the exit code alone.
 */
async function outputWritten(
  io: IOStreams,
  code: number,
  json: boolean,
  signal: AbortSignal,
): Promise<number> {
  io.clearStatus();
  // Output that a reader never takes must not hold the command past Ctrl-C: it then ends as
  // interrupted, its output cut short. (After a Ctrl-C that the command itself answered, its
  // exit code stands: the sandbox's 0.)
  if (signal.aborted) await writeErrorsArrived();
  else if (!(await flushedUnlessCtrlC(io, signal)) && code === ExitCode.ok) {
    return ExitCode.interrupted;
  }
  const failed = io.outputError;
  if (failed && failed.code !== 'EPIPE') {
    const error = new CliError(
      `cannot write output: ${describeWriteError(failed)}`,
      ExitCode.failure,
      'output_failed',
    );
    report(io, error, { json, debug: false, original: error });
    await flushedUnlessCtrlC(io, signal);
  }
  const lost = io.outputError ?? io.errorOutputError;
  return lost && lost.code !== 'EPIPE' && code === ExitCode.ok ? ExitCode.failure : code;
}

/** Whether all output reached the system (or failed) before Ctrl-C came. */
async function flushedUnlessCtrlC(io: IOStreams, signal: AbortSignal): Promise<boolean> {
  try {
    await untilCtrlC(io.flushed(), signal);
    return true;
  } catch {
    return false;
  }
}

/** Invocations run by preload: each a usage error found once the command is built and its
 * flags parsed, before anything is read or sent. */
const WARM_UP = [
  ['pets', 'list', '--json', '--limit', '0'],
  ['pets', 'list', '--limit', '0'],
];

/**
 * Loads what every command needs (the command tree with commander and zod, the context with
 * the config and renderer modules) and runs its common path (`pets list` built, its flags
 * parsed and refused) with streams of its own, an empty environment and no terminal: the
 * single executable's start-up snapshot holds all of that loaded, and V8's bytecode of the
 * functions that ran (scripts/sea-snapshot.cjs). Nothing here may read the process's own
 * environment, terminal or time: the snapshot would keep them.
 */
export async function preload(): Promise<void> {
  const { Writable } = process.getBuiltinModule('node:stream');
  const sink = () => new Writable({ write: (_chunk, _encoding, done) => done() });
  const proc = { stdin: undefined as never, stdout: sink(), stderr: sink(), env: {} };
  for (const argv of WARM_UP) {
    const signal = new AbortController().signal;
    const code = await main(argv, { io: systemIO(proc), env: proc.env, signal });
    if (code !== ExitCode.usage) throw new Error(`preload: ${argv.join(' ')} exited ${code}`);
  }
}

/** The process entry point used by bin/store.js. */
export async function cli(): Promise<void> {
  const io = systemIO(process);
  const controller = new AbortController();
  // The first Ctrl-C (or SIGTERM, or SIGHUP: a dropped SSH session) aborts what is in flight,
  // so the command ends cleanly (exit 130; the sandbox exits 0); a second one kills at once.
  let received: NodeJS.Signals | undefined;
  const onSignal = (name: NodeJS.Signals) => {
    received = name;
    if (controller.signal.aborted) {
      for (const each of HANDLED_SIGNALS) process.off(each, onSignal);
      // A progress line or spinner is erased first (a terminal's stderr is written at once):
      // the shell's prompt must not land on it. Then what is left undone is said, as the
      // command's own report will not come (a bulk import's inputs in flight).
      io.quitAtOnce();
      process.kill(process.pid, name);
    } else {
      controller.abort();
    }
  };
  for (const each of HANDLED_SIGNALS) process.on(each, onSignal);
  // Should the event loop ever empty before main() returns, the process must not end with 0.
  // Said at exit, not set now: commander's help takes process.exitCode for its own (`store pets
  // help list` would end with 2, as if the help had come with a usage error).
  let returned = false;
  process.once('exit', (exitCode) => {
    if (!returned && exitCode === 0) process.exitCode = ExitCode.failure;
  });
  const code = await main(process.argv.slice(2), {
    io,
    env: process.env,
    signal: controller.signal,
    restartWithV8Flags: (flags) =>
      restartWithV8Flags(flags, process, process.getBuiltinModule('node:sea').isSea()),
  });
  returned = true;
  for (const each of HANDLED_SIGNALS) process.off(each, onSignal);
  // Let pending output drain: set the exit code and return instead of exiting at once.
  process.exitCode = code;
  if (code === ExitCode.interrupted && received && process.platform !== 'win32') {
    endBySignal(received, io);
  }
}

/**
 * Interrupted by a signal, the process ends by that signal once its output is written, as
 * Unix programs do: a shell running a script or a loop stops only when its child died of the
 * SIGINT (it takes an exit status of 130 for a child that handled it), and its `$?` is 130
 * all the same. (A Ctrl-C at a prompt in raw mode is no signal: exit 130.)
 */
function endBySignal(signal: NodeJS.Signals, io: IOStreams): void {
  // 'exit' comes once the event loop is empty, so every write has been made; our listeners
  // are gone, so the signal takes its default action.
  process.once('exit', () => process.kill(process.pid, signal));
  endIfHeld(signal, io);
}

/**
 * After Ctrl-C the command has ended, but the process can still be held by what no abort
 * cancels (a read of a pipe whose writer says nothing waits in libuv's thread pool, and even an
 * explicit exit waits to join that thread). Still there a second later, its output written, it
 * ends as a second signal would: by that signal (a shell sees 130 for SIGINT). The timer is
 * unref'd: a process that ends by itself never meets it.
 */
function endIfHeld(signal: NodeJS.Signals, io: IOStreams): void {
  const check = () => {
    if (io.pendingOutput > 0) {
      setTimeout(check, 100).unref();
    } else process.kill(process.pid, signal);
  };
  setTimeout(check, 1000).unref();
}
