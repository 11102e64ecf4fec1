// The one renderer: every command hands its data here. stdout gets a table on a TTY,
// tab-separated rows with a header when piped, or the API's JSON with --json.
// The terminal table (and chalk) live in ./table.ts, imported only when one is drawn, so
// the JSON and tab-separated paths load neither.

import type { Env } from '../env.js';
import { CliError, ExitCode, FlagError } from '../errors.js';
import type { IOStreams } from '../io.js';
import { parseJson, stringifyJson } from '../json.js';
import { withSignalsEndingAtOnce } from '../signals.js';
import { chunkedOut } from './chunks.js';
import type { JqEngine } from './jq.js';
import { fitColumns } from './layout.js';
import { sanitize, sanitizeLines, tsvField } from './sanitize.js';
import type { CellTable, ColorFn } from './table.js';
import { textWidth } from './width.js';

export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
  /** Colour for a cell's (already sanitised) text on a colour terminal. */
  color?: ColorFn;
  /** Never cut to fit a terminal's width (identifiers). Other columns may be cut with `…`. */
  fixed?: boolean;
  /** Cut in the middle rather than at the end (URLs: both ends tell them apart). */
  cutMiddle?: boolean;
}

export interface OutputOptions {
  json: boolean;
  /** --json FIELDS: only these keys of each object, in this order. */
  jsonFields?: readonly string[];
  /** --jq: the filter the JSON goes through (compiled by prepareJq before the command ran). */
  jq?: string;
  /** What `$ENV` and `env` give the --jq filter: the environment. */
  jqEnv?: Env;
}

/** A cell's text: strings as they are, other JSON values as JSON, nothing for null. */
function cellText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') {
    return String(value);
  }
  return stringifyJson(value) ?? '';
}

/** One JSON document: indented for a person on a terminal, compact for a program; only the
 * fields chosen, or what the --jq filter makes of it. */
export async function writeJson(
  io: IOStreams,
  data: unknown,
  options?: OutputOptions,
): Promise<void> {
  const chosen = options?.jsonFields ? selectFields(data, options.jsonFields) : data;
  if (options?.jq !== undefined) {
    await writeJq(io, options.jq, stringifyJson(chosen), options.jqEnv ?? {});
    return;
  }
  io.out(`${stringifyJson(chosen, io.stdoutIsTTY ? 2 : undefined)}\n`);
}

/** Each object (each element of an array) with only `fields`, in that order; a field an
 * object lacks is null, so that every object has the same keys. */
export function selectFields(data: unknown, fields: readonly string[]): unknown {
  const pick = (value: unknown) =>
    isRecord(value)
      ? Object.fromEntries(fields.map((field) => [field, own(value, field) ?? null]))
      : value;
  return Array.isArray(data) ? data.map(pick) : pick(data);
}

let jqLoading: Promise<JqEngine> | undefined;
let loadedJq: JqEngine | undefined;

/** Loads the jq engine (once) and compiles `expression`: an expression jq refuses is a usage
 * error, found before anything is sent. */
export async function prepareJq(expression: string): Promise<void> {
  jqLoading ??= import('./jq.js').then(async ({ loadJqEngine }) => {
    loadedJq = await loadJqEngine();
    return loadedJq;
  });
  const problem = (await jqLoading).compileError(expression);
  if (problem !== undefined) throw new FlagError(`--jq: ${problem}`);
}

/**
 * The filter's results, each on its own line: strings as their text (jq -r), anything else
 * as JSON, exact (jq's own text). A filter that fails prints nothing: stdout is empty on any
 * failure. On a terminal, strings are neutralised and JSON indented, as everywhere.
 */
async function writeJq(io: IOStreams, expression: string, text: string, env: Env): Promise<void> {
  if (!loadedJq) throw new Error('--jq runs after prepareJq');
  const engine = loadedJq;
  const run = withSignalsEndingAtOnce(() => engine.run(expression, text, env));
  if (!run.ok) {
    // A failed engine is loaded anew by the next prepareJq (a process runs one filter; tests
    // run many).
    if (run.broken) jqLoading = undefined;
    throw new CliError(`--jq: ${run.message}`, ExitCode.failure, 'jq_error');
  }
  // What the filter itself says (`debug`, `stderr`) goes to stderr, as with jq: the server's
  // text, neutralised on a terminal as on stdout.
  if (run.stderr !== '') {
    const said = run.stderr.replace(/\n$/, '');
    io.err(`${io.stderrIsTTY ? sanitizeLines(said) : said}\n`);
  }
  const out = chunkedOut(io);
  for (const result of run.results) {
    let line: string;
    if (result.startsWith('"')) {
      const raw = JSON.parse(result) as string;
      line = io.stdoutIsTTY ? sanitizeLines(raw) : raw;
    } else {
      line = io.stdoutIsTTY ? stringifyJson(parseJson(result), 2) : result;
    }
    // Each piece written waits for room: a slow reader holds the output, not a pile of
    // writes (and of `drain` listeners).
    const room = out.add(`${line}\n`);
    if (room && !(await room)) return;
  }
  out.end();
}

type TableModule = typeof import('./table.js');
let tableLoading: Promise<TableModule> | undefined;
let loadedTable: TableModule | undefined;

/** Loads the terminal table's renderer (and chalk), once. A table about to be drawn without
 * waiting (RowWriter.endAtOnce) needs it loaded already: a command that may draw one that way
 * calls this when it starts. */
export function loadTable(): Promise<TableModule> {
  if (!tableLoading) {
    tableLoading = import('./table.js').then((renderer) => {
      loadedTable = renderer;
      return renderer;
    });
    // Awaited by end(); a process that ends without it must not die of the rejection.
    tableLoading.catch(() => {});
  }
  return tableLoading;
}

export interface RowWriter<T> {
  write(row: T): void;
  /** Writes what is held back (a terminal table) and ends. */
  end(): Promise<void>;
  /** Writes what is held back without waiting, as the process is about to end by a signal
   * (a second Ctrl-C): a terminal table is drawn if its renderer is loaded by then (loadTable),
   * uncoloured rows if chalk is not. Ends the writer. */
  endAtOnce(): void;
}

/**
 * Rows as they come: tab-separated lines go out at once (a long import streams); a terminal
 * table is drawn at the end, since its column widths depend on every row.
 */
export function rowWriter<T>(io: IOStreams, columns: readonly Column<T>[]): RowWriter<T> {
  if (!io.stdoutIsTTY) {
    let paint = (cells: string[]) => cells;
    const fields = (row: T) => columns.map((column) => tsvField(cellText(column.value(row))));
    const line = (row: T) => `${paint(fields(row)).join('\t')}\n`;
    const header = `${columns.map((c) => tsvField(c.header)).join('\t')}\n`;
    if (!io.colorOut) {
      io.out(header);
      return { write: (row) => io.out(line(row)), end: async () => {}, endAtOnce: () => {} };
    }
    // Colour off a terminal (FORCE_COLOR) is rare: chalk is loaded for it, and rows written
    // meanwhile wait for it, in order.
    let held: T[] | undefined = [];
    const release = () => {
      if (!held) return;
      io.out(header);
      for (const row of held) io.out(line(row));
      held = undefined;
    };
    const ready = loadTable().then(({ chalkFor }) => {
      const chalk = chalkFor(true);
      if (held) paint = (cells) => cells.map((text, i) => columns[i]?.color?.(text, chalk) ?? text);
      release();
    });
    return {
      write: (row) => {
        if (held) held.push(row);
        else io.out(line(row));
      },
      end: () => ready,
      endAtOnce: release,
    };
  }
  const table: CellTable = {
    headers: columns.map((c) => sanitize(c.header)),
    fixed: columns.map((c) => c.fixed === true),
    cutMiddle: columns.map((c) => c.cutMiddle === true),
    colors: columns.map((c) => c.color),
    natural: [],
    rows: [],
  };
  table.natural = table.headers.map(textWidth);
  let drawn = false;
  const draw = () => {
    if (drawn || !loadedTable) return;
    drawn = true;
    loadedTable.drawTable(io, table);
  };
  void loadTable();
  return {
    write: (row) => {
      const cells = columns.map((column) => sanitize(cellText(column.value(row))));
      for (const [i, text] of cells.entries()) {
        const width = textWidth(text);
        if (width > (table.natural[i] as number)) table.natural[i] = width;
      }
      table.rows.push(cells);
    },
    end: async () => {
      await loadTable();
      draw();
    },
    endAtOnce: draw,
  };
}

export async function renderRows<T>(
  io: IOStreams,
  rows: readonly T[],
  columns: readonly Column<T>[],
  options: OutputOptions,
  jsonData: unknown = rows,
): Promise<void> {
  if (options.json) {
    await writeJson(io, jsonData, options);
    return;
  }
  if (!io.stdoutIsTTY && !io.colorOut) {
    await writeTsv(io, rows, columns);
    return;
  }
  const writer = rowWriter(io, columns);
  for (const row of rows) writer.write(row);
  await writer.end();
}

/** Tab-separated rows, written in large pieces: one write per line would be a system call
 * each. */
async function writeTsv<T>(
  io: IOStreams,
  rows: readonly T[],
  columns: readonly Column<T>[],
): Promise<void> {
  const out = chunkedOut(io);
  out.add(`${columns.map((c) => tsvField(c.header)).join('\t')}\n`);
  for (const row of rows) {
    const room = out.add(
      `${columns.map((column) => tsvField(cellText(column.value(row)))).join('\t')}\n`,
    );
    if (room && !(await room)) return;
  }
  out.end();
}

/** A single object shown as one row of the same columns (JSON: the object itself). */
export async function renderItem<T>(
  io: IOStreams,
  item: T,
  columns: readonly Column<T>[],
  options: OutputOptions,
): Promise<void> {
  await renderRows(io, [item], columns, options, item);
}

type Row = Record<string, unknown>;

const isRecord = (v: unknown): v is Row =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && !JSON.isRawJSON(v);

/** Server data is a plain object whose keys may be `__proto__` or `toString`: only its own. */
const own = (row: Row, key: string): unknown => (Object.hasOwn(row, key) ? row[key] : undefined);

/** Any JSON: an array of objects becomes rows whose columns are the union of their keys, in
 * the order first seen (built in one pass); anything else is printed as JSON. */
export async function renderAny(io: IOStreams, data: unknown, options: OutputOptions) {
  if (options.json || !Array.isArray(data) || !data.every(isRecord)) {
    await writeJson(io, data, options);
    return;
  }
  // No rows, so no keys: a header line would be an empty line.
  if (data.length === 0) return;
  // Widest cell per key, measured only on a terminal (it decides which columns fit).
  const measure = io.stdoutIsTTY;
  const natural = new Map<string, number>();
  for (const row of data) {
    for (const key of Object.keys(row)) {
      let width = natural.get(key);
      if (width === undefined) {
        width = measure ? textWidth(sanitize(key)) : 0;
        natural.set(key, width);
      }
      if (measure) {
        const cell = textWidth(sanitize(cellText(row[key])));
        if (cell > width) natural.set(key, cell);
      }
    }
  }
  let keys = [...natural.keys()];
  let hidden = 0;
  if (measure) {
    // Thousands of distinct keys: only the columns that can fit are built.
    const fixed = keys.map(isIdKey);
    const { shown } = fitColumns([...natural.values()], fixed, io.columns);
    hidden = keys.length - shown;
    keys = keys.slice(0, shown);
  }
  const columns: Column<Row>[] = keys.map((key) => ({
    header: key,
    value: (row) => own(row, key),
    fixed: isIdKey(key),
    cutMiddle: isUrlKey(key),
  }));
  if (!measure) {
    await writeSparseTsv(io, data, keys);
    return;
  }
  const table: CellTable = {
    headers: keys.map((key) => sanitize(key)),
    fixed: columns.map((c) => c.fixed === true),
    cutMiddle: columns.map((c) => c.cutMiddle === true),
    colors: columns.map(() => undefined),
    natural: keys.map((key) => natural.get(key) ?? 0),
    rows: data.map((row) => keys.map((key) => sanitize(cellText(own(row, key))))),
    hidden,
  };
  const { drawTable } = await import('./table.js');
  drawTable(io, table);
}

/** Identifiers, never cut on a terminal: `id`, and keys such as `petId` or `pet_id`. */
const isIdKey = (key: string) => /^id$|Id$|_id$/.test(key);

/** URLs, cut in the middle on a terminal: `url`, and keys such as `photoUrl`, `baseURL` or
 * `base_url` (not `curl`). */
const isUrlKey = (key: string) => /^url$|Url$|URL$|_url$/.test(key);

/** Tab-separated rows of any keys: each row fills in only the keys it has (rows with keys of
 * their own make the output rows × keys cells, but no more work than that). */
async function writeSparseTsv(
  io: IOStreams,
  data: readonly Row[],
  keys: readonly string[],
): Promise<void> {
  const index = new Map(keys.map((key, i) => [key, i]));
  const out = chunkedOut(io);
  // The header alone may be a piece (thousands of keys).
  const first = out.add(`${keys.map((key) => tsvField(key)).join('\t')}\n`);
  if (first && !(await first)) return;
  for (const row of data) {
    const cells: string[] = new Array(keys.length).fill('');
    for (const key of Object.keys(row)) {
      cells[index.get(key) as number] = tsvField(cellText(row[key]));
    }
    const room = out.add(`${cells.join('\t')}\n`);
    if (room && !(await room)) return;
  }
  out.end();
}
