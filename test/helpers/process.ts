// Runs bin/store.js as a real process, and the sandbox as a real server process, for the
// end-to-end tests: what a user or a script meets, over real HTTP on loopback.
import { type ChildProcess, spawn } from 'node:child_process';
import { once } from 'node:events';
import { closeSync, openSync, readdirSync, readFileSync } from 'node:fs';
import { SourceMap } from 'node:module';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { afterThisTest } from './cleanup.js';
import { tempDir } from './cli.js';

export const BIN = fileURLToPath(new URL('../../bin/store.js', import.meta.url));
const ROOT = fileURLToPath(new URL('../..', import.meta.url));
/**
 * The single executable that store() and storeOnFullDisk() run instead of bin/store.js, when
 * STORE_TEST_BINARY names one (`npm run test:binary`: dist-bin/store, against a subset of the
 * end-to-end tests). A test that gives Node's own flags or another Node still runs bin/store.js.
 */
const BINARY = process.env.STORE_TEST_BINARY ? resolve(ROOT, process.env.STORE_TEST_BINARY) : '';

/** The command line that runs store with `args` (and Node's `nodeArgs`, by bin/store.js). */
function commandLine(args: string[], nodeArgs?: string[], node?: string): [string, string[]] {
  if (BINARY && !nodeArgs && !node) return [BINARY, args];
  return [node ?? process.execPath, [...(nodeArgs ?? []), BIN, ...args]];
}

export interface ProcessResult {
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
}

/**
 * Node's compile cache for the processes tests start (bin/store.js keeps it under
 * XDG_CACHE_HOME): one for the checkout, so that they start warm, as a user's store does.
 */
const XDG_CACHE_HOME = fileURLToPath(new URL('../../node_modules/.cache/test', import.meta.url));

/** A clean environment: no colour hints, no proxies, an empty config folder. */
export function processEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    HOME: tempDir(),
    STORE_CONFIG_DIR: tempDir(),
    XDG_CACHE_HOME,
    ...extra,
  };
}

export async function store(
  args: string[],
  options: {
    env?: NodeJS.ProcessEnv;
    stdin?: string;
    nodeArgs?: string[];
    cwd?: string;
    /** Another Node to run it with (an old one, to see it refused). */
    node?: string;
  } = {},
): Promise<ProcessResult> {
  const [command, commandArgs] = commandLine(args, options.nodeArgs, options.node);
  const child = spawn(command, commandArgs, {
    env: options.env ?? processEnv(),
    cwd: options.cwd,
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  child.stdin.end(options.stdin ?? '');
  return collect(child);
}

/** Runs bin/store.js as a process with stdout on a full device (/dev/full: every write fails
 * with ENOSPC); Linux only (`existsSync('/dev/full')`). */
export async function storeOnFullDisk(
  args: string[],
  env: NodeJS.ProcessEnv = processEnv(),
): Promise<ProcessResult> {
  const full = openSync('/dev/full', 'w');
  try {
    const [command, commandArgs] = commandLine(args);
    const child = spawn(command, commandArgs, { env, stdio: ['ignore', full, 'pipe'] });
    return await collect(child);
  } finally {
    closeSync(full);
  }
}

export async function collect(child: ChildProcess): Promise<ProcessResult> {
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (chunk) => {
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const [code, signal] = (await once(child, 'close')) as [number | null, NodeJS.Signals | null];
  return { code, signal, stdout, stderr };
}

export interface SandboxProcess {
  url: string;
  child: ChildProcess;
  /** Environment that points `store` at this sandbox, like `--profile sandbox` on its port. */
  env(extra?: Record<string, string>): NodeJS.ProcessEnv;
  /** Stops it with a signal and returns how it ended. */
  stop(signal?: NodeJS.Signals): Promise<ProcessResult>;
  /** Resolves once the request log on stderr holds `text` (e.g. 'POST /v1/pets 201'): a test
   * waits for the event itself rather than for a guessed delay. */
  logged(text: string): Promise<void>;
}

const running = new Set<ChildProcess>();

export async function startSandbox(args: string[] = []): Promise<SandboxProcess> {
  const child = spawn(process.execPath, [BIN, 'sandbox', '--port', '0', ...args], {
    env: processEnv(),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  afterThisTest(() => child.kill('SIGKILL'));
  const result = collect(child);
  const url = await new Promise<string>((resolve, reject) => {
    let seen = '';
    child.stdout.on('data', (chunk) => {
      seen += chunk;
      if (seen.includes('\n')) resolve(seen.split('\n')[0] as string);
    });
    child.once('close', () => reject(new Error(`sandbox exited early: ${seen}`)));
  });
  let log = '';
  const waiting = new Set<() => void>();
  child.stderr.on('data', (chunk) => {
    log += chunk;
    for (const check of waiting) check();
  });
  return {
    url,
    child,
    logged: (text) =>
      new Promise<void>((resolve, reject) => {
        const check = () => {
          if (!log.includes(text)) return;
          waiting.delete(check);
          resolve();
        };
        waiting.add(check);
        check();
        child.once('close', () => reject(new Error(`sandbox exited before logging ${text}`)));
      }),
    env: (extra = {}) =>
      processEnv({
        STORE_PROFILE: 'sandbox',
        STORE_BASE_URL: url,
        STORE_MESSAGES_URL: url,
        ...extra,
      }),
    stop: async (signal = 'SIGTERM') => {
      child.kill(signal);
      const ended = await result;
      running.delete(child);
      return ended;
    },
  };
}

/** Kills any sandbox a failed test left running (test/setup.ts also does, after every test). */
export function killAll(): void {
  for (const child of running) child.kill('SIGKILL');
  running.clear();
}

export interface LoadedModules extends ProcessResult {
  /** The files of dist/ the run compiled (`store.cjs`, `table.cjs`), from V8's coverage. */
  scripts: string[];
  /** The source files of dist/'s code that ran (`src/errors.ts`, `node_modules/zod/v4/core/
   * core.js`): each function V8's precise coverage counted a call of, traced to its file
   * through the bundle's source map. Only functions whose first token the map places exactly
   * count: a module's init wrapper starts at its first statement, and a looser match could
   * name the module before it. */
  ran: string[];
  /** Node's own public modules the run loaded (`http`, `fs/promises`…), from
   * process.moduleLoadList: loaded by anyone, by require, import or getBuiltinModule. */
  builtins: string[];
}

/** Runs bin/store.js (imported by a probe, in its process) under V8's coverage: what ran,
 * which of Node's modules were loaded; stderr is what the program wrote there. */
export async function modulesLoaded(
  argv: string[],
  env: NodeJS.ProcessEnv,
  /** 'pipe': an empty pipe; 'null': /dev/null, as cron and `< /dev/null` give. */
  stdin: 'pipe' | 'null' = 'pipe',
): Promise<LoadedModules> {
  const coverage = tempDir();
  const probe = `
    process.argv.splice(1, Infinity, "store", ...${JSON.stringify(argv)});
    await import(${JSON.stringify(pathToFileURL(BIN).href)});
    process.on('exit', () => process.stderr.write('\\n' + JSON.stringify(process.moduleLoadList)));`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', probe], {
    env: { ...env, NODE_V8_COVERAGE: coverage },
    stdio: [stdin === 'null' ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  // Nothing to read: a command reading stdin (`store mcp`) sees its end.
  child.stdin?.end();
  const result = await collect(child);
  const lines = result.stderr.split('\n');
  const builtins = (JSON.parse(lines.pop() ?? '[]') as string[])
    .filter((entry) => entry.startsWith('NativeModule ') && !entry.includes(' internal/'))
    .map((entry) => entry.slice('NativeModule '.length));
  const scripts: string[] = [];
  const ran = new Set<string>();
  for (const name of readdirSync(coverage)) {
    const report = JSON.parse(readFileSync(join(coverage, name), 'utf8')) as V8Coverage;
    for (const script of report.result) {
      const file = /\/dist\/([\w.-]+)$/.exec(script.url)?.[1];
      if (!file) continue;
      scripts.push(file);
      for (const source of sourcesThatRan(fileURLToPath(script.url), script.functions)) {
        ran.add(source);
      }
    }
  }
  return { ...result, stderr: lines.join('\n'), scripts: scripts.sort(), ran: [...ran], builtins };
}

/** What NODE_V8_COVERAGE writes, as far as the tests read it. */
interface V8Coverage {
  result: { url: string; functions: CoveredFunction[] }[];
}

interface CoveredFunction {
  ranges: { startOffset: number; endOffset: number; count: number }[];
}

// bin/store.js runs each file of dist/ inside this function: V8's offsets count from it.
const WRAPPER_HEAD = '(function (exports, require, module, __filename, __dirname) {';
const WRAPPER_TAIL = '\n})';

/** The source files (relative to the project) of the functions of `bundle` that ran. */
function sourcesThatRan(bundle: string, functions: CoveredFunction[]): Set<string> {
  const text = readFileSync(bundle, 'utf8');
  const script = functions.find((fn) => fn.ranges[0]?.startOffset === 0)?.ranges[0];
  if (script?.endOffset !== WRAPPER_HEAD.length + text.length + WRAPPER_TAIL.length) {
    throw new Error(`${bundle} did not run in bin/store.js's wrapper as this helper knows it`);
  }
  const map = new SourceMap(JSON.parse(readFileSync(`${bundle}.map`, 'utf8')));
  const lineStarts = [0];
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lineStarts.push(i + 1);
  const sources = new Set<string>();
  for (const fn of functions) {
    const range = fn.ranges[0];
    // Offset 0 is the whole file, not a function of it.
    if (!range || range.count === 0 || range.startOffset === 0) continue;
    const offset = range.startOffset - WRAPPER_HEAD.length;
    const line = lineStarts.findLastIndex((start) => start <= offset);
    const column = offset - (lineStarts[line] ?? 0);
    const entry = map.findEntry(line, column);
    if (!('originalSource' in entry)) continue;
    if (entry.generatedLine !== line || entry.generatedColumn !== column) continue;
    sources.add(relative(ROOT, resolve(dirname(bundle), entry.originalSource)));
  }
  return sources;
}

/**
 * A probe of what a process used: `node --import <url>` makes it write its resource usage to a
 * file as it exits; peakMiB() is its peak memory (maxRSS), cpuSeconds() its user and system CPU.
 */
export function resourceProbe(): { url: string; peakMiB: () => number; cpuSeconds: () => number } {
  const file = join(tempDir(), 'resource-usage.json');
  const code = `process.on("exit",()=>process.getBuiltinModule("node:fs").writeFileSync(${JSON.stringify(file)},JSON.stringify(process.resourceUsage())))`;
  const usage = () => JSON.parse(readFileSync(file, 'utf8')) as NodeJS.ResourceUsage;
  return {
    url: `data:text/javascript,${encodeURIComponent(code)}`,
    peakMiB: () => usage().maxRSS / 1024,
    cpuSeconds: () => (usage().userCPUTime + usage().systemCPUTime) / 1e6,
  };
}
