// node:sqlite, loaded without its ExperimentalWarning. Node 22 (22.19 is supported) marks the
// module experimental and prints a warning when it loads; the sandbox prints only its own
// lines, so that one warning, and only it, is dropped while the module loads.

type EmitWarning = typeof process.emitWarning;
export type Sqlite = typeof import('node:sqlite');

/** True for the warning Node emits when node:sqlite loads. */
export function isSqliteWarning(warning: string | Error, typeOrOptions?: unknown): boolean {
  const type =
    typeof typeOrOptions === 'string'
      ? typeOrOptions
      : (typeOrOptions as { type?: string } | undefined)?.type;
  const name = typeof warning === 'string' ? type : warning.name;
  const text = typeof warning === 'string' ? warning : warning.message;
  return name === 'ExperimentalWarning' && /^SQLite is an experimental feature/.test(text);
}

/** Runs `load` with process.emitWarning dropping the SQLite warning and passing on any other. */
export async function withoutSqliteWarning<T>(load: () => Promise<T>): Promise<T> {
  const emitWarning = process.emitWarning;
  process.emitWarning = function (this: unknown, warning: string | Error, ...rest: unknown[]) {
    if (isSqliteWarning(warning, rest[0])) return;
    return (emitWarning as (...args: unknown[]) => void).call(process, warning, ...rest);
  } as EmitWarning;
  try {
    return await load();
  } finally {
    process.emitWarning = emitWarning;
  }
}

export function loadSqlite(): Promise<Sqlite> {
  return withoutSqliteWarning(() => import('node:sqlite'));
}
