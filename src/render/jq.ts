// The engine behind --jq: jq itself (jq-wasm: jq 1.8 compiled to WebAssembly), so the filter
// language is jq's own. It is given the JSON as text: numbers reach it as written, and jq keeps
// an integer literal it does not compute with (an id above 2^53) digit for digit. A file of its
// own in dist/ (scripts/build.js), read only when --jq is given.
import { loadJq } from 'jq-wasm/inline';

export type JqRun =
  | { ok: true /** One compact JSON text per result. */; results: string[]; stderr: string }
  | { ok: false; message: string };

export interface JqEngine {
  /** jq's own version, e.g. `jq-1.8.2`. */
  readonly version: string;
  /** jq's message for an expression that does not compile; undefined when it compiles. */
  compileError(expression: string): string | undefined;
  run(expression: string, text: string): JqRun;
}

export async function loadJqEngine(): Promise<JqEngine> {
  const jq = await loadJq();
  return {
    version: jq.version,
    compileError(expression) {
      // With no input at all, jq compiles the program and runs it on nothing.
      const { exitCode, stderr } = jq.raw('', expression, ['-c']);
      return exitCode === 0 ? undefined : jqMessage(stderr, exitCode);
    },
    run(expression, text) {
      const { exitCode, stdout, stderr } = jq.raw(text, expression, ['-c']);
      if (exitCode !== 0) return { ok: false, message: jqMessage(stderr, exitCode) };
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
