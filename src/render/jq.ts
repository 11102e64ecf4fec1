// The engine behind --jq: jq itself (jq-wasm: jq 1.8 compiled to WebAssembly), so the filter
// language is jq's own. It is given the JSON as text: numbers reach it as written, and jq keeps
// an integer literal it does not compute with (an id above 2^53) digit for digit. A file of its
// own in dist/ (scripts/build.js), read only when --jq is given.
import type { Jq } from 'jq-wasm/inline';
import type { Env } from '../env.js';

export type JqRun =
  | { ok: true /** One compact JSON text per result. */; results: string[]; stderr: string }
  /** `broken`: the engine itself failed, and cannot be used again. */
  | { ok: false; message: string; broken?: boolean };

export interface JqEngine {
  /** jq's own version, e.g. `jq-1.8.2`. */
  readonly version: string;
  /** jq's message for an expression that does not compile; undefined when it compiles. */
  compileError(expression: string): string | undefined;
  /** `env`: what `$ENV` and `env` give the filter. */
  run(expression: string, text: string, env: Env): JqRun;
}

export async function loadJqEngine(): Promise<JqEngine> {
  // The WebAssembly runtime reports its own failures (an abort) through console.error: they
  // are kept here, for the error that follows, not printed raw.
  const said: string[] = [];
  const hush = <T>(work: () => T): T => {
    const consoleError = console.error;
    console.error = (...parts: unknown[]) => said.push(parts.join(' '));
    try {
      return work();
    } finally {
      console.error = consoleError;
    }
  };
  const { loadJq } = await import('jq-wasm/inline');
  const jq: Jq = await hush(() => loadJq());
  /** jq.raw, or jq's message when the engine itself fails: a filter that builds values nested
   * some 10,000 deep overruns its stack (jq built natively would go further). */
  const raw = (input: string, expression: string, flags: string[] = []) => {
    said.length = 0;
    try {
      return hush(() => jq.raw(input, expression, ['-c', ...flags]));
    } catch (error) {
      const detail =
        said.find((line) => line !== 'Aborted()') ??
        (error as Error).message.replace(/\. Build with .*$/, '');
      return {
        exitCode: 5,
        stdout: '',
        stderr: `the jq engine stopped (${detail}): values nested too deep?`,
        broken: true,
      };
    }
  };
  return {
    version: jq.version,
    compileError(expression) {
      // With no input at all, jq compiles the program and runs it on nothing.
      const { exitCode, stderr } = raw('', expression);
      return exitCode === 0 ? undefined : jqMessage(stderr, exitCode);
    },
    run(expression, text, env) {
      // `$ENV` and `env` are the environment, as in jq: the engine's own is a stand-in
      // (Emscripten's USER=web_user…). A binding before the filter gives it; a filter that
      // cannot follow one (a `module` directive: exit 3, as it compiled alone) runs as given.
      const withEnv = `$__store_env as $ENV | def env: $ENV; ${expression}`;
      let result = raw(text, withEnv, ['--argjson', '__store_env', JSON.stringify(env)]);
      if (result.exitCode === 3) result = raw(text, expression);
      const { exitCode, stdout, stderr, ...more } = result;
      if (exitCode !== 0) {
        return { ok: false, message: jqMessage(stderr, exitCode), broken: 'broken' in more };
      }
      return { ok: true, results: stdout.split('\n').filter((line) => line !== ''), stderr };
    },
  };
}

/** jq's error lines without their `jq: error (at <stdin>:0):` prefix (a place that means
 * nothing here), or what `halt_error` wrote. */
function jqMessage(stderr: string, exitCode: number): string {
  const errors = stderr
    .split('\n')
    .filter((line) => line.startsWith('jq: error'))
    .map((line) => line.replace(/^jq: error(?: \(at [^)]*\))?:? ?/, '').replace(/:$/, ''));
  if (errors.length > 0) return errors.join('; ');
  return stderr.trim() || `jq stopped with exit status ${exitCode}`;
}
