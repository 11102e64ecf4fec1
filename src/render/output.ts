// The one renderer: every command hands its data here. stdout gets a table on a TTY,
// tab-separated rows with a header when piped, or the API's JSON with --json.
import { Chalk, type ChalkInstance } from 'chalk';
import Table from 'cli-table3';
import type { IOStreams } from '../io.js';
import { stringifyJson } from '../json.js';
import { sanitize } from './sanitize.js';

export interface Column<T> {
  header: string;
  value: (row: T) => unknown;
  /** Colour for a cell's (already sanitised) text on a colour terminal. */
  color?: (text: string, chalk: ChalkInstance) => string;
}

export interface OutputOptions {
  json: boolean;
}

/** A cell's text: strings as they are, other JSON values as JSON, nothing for null. */
export function cellText(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'bigint' || typeof value === 'boolean') {
    return String(value);
  }
  return stringifyJson(value);
}

export function chalkFor(color: boolean): ChalkInstance {
  return new Chalk({ level: color ? 1 : 0 });
}

/** One JSON document: indented for a person on a terminal, compact for a program. */
export function writeJson(io: IOStreams, data: unknown): void {
  io.out(`${stringifyJson(data, io.stdoutIsTTY ? 2 : undefined)}\n`);
}

export interface RowWriter<T> {
  write(row: T): void;
  end(): void;
}

/** Rows as they come: tab-separated lines go out at once (a long import streams); a terminal
 * table is drawn at the end, since its column widths depend on every row. */
export function rowWriter<T>(io: IOStreams, columns: readonly Column<T>[]): RowWriter<T> {
  const chalk = chalkFor(io.colorOut);
  const cellsOf = (row: T) =>
    columns.map((column) => {
      const text = sanitize(cellText(column.value(row)));
      return io.colorOut && column.color ? column.color(text, chalk) : text;
    });
  if (!io.stdoutIsTTY) {
    io.out(`${columns.map((c) => sanitize(c.header)).join('\t')}\n`);
    return { write: (row) => io.out(`${cellsOf(row).join('\t')}\n`), end: () => {} };
  }
  const table = new Table({
    head: columns.map((c) => chalk.bold(sanitize(c.header))),
    chars: BORDERLESS,
    style: { head: [], border: [], 'padding-left': 0, 'padding-right': 2 },
  });
  return {
    write: (row) => table.push(cellsOf(row)),
    end: () => io.out(`${table.toString().replace(/ +$/gm, '')}\n`),
  };
}

export function renderRows<T>(
  io: IOStreams,
  rows: readonly T[],
  columns: readonly Column<T>[],
  options: OutputOptions,
  jsonData: unknown = rows,
): void {
  if (options.json) {
    writeJson(io, jsonData);
    return;
  }
  const writer = rowWriter(io, columns);
  for (const row of rows) writer.write(row);
  writer.end();
}

/** A single object shown as one row of the same columns (JSON: the object itself). */
export function renderItem<T>(
  io: IOStreams,
  item: T,
  columns: readonly Column<T>[],
  options: OutputOptions,
): void {
  renderRows(io, [item], columns, options, item);
}

/** Any JSON: an array of objects becomes rows whose columns are the union of their keys. */
export function renderAny(io: IOStreams, data: unknown, options: OutputOptions): void {
  const isRecord = (v: unknown): v is Record<string, unknown> =>
    typeof v === 'object' && v !== null && !Array.isArray(v);
  if (options.json || !Array.isArray(data) || !data.every(isRecord)) {
    writeJson(io, data);
    return;
  }
  const keys: string[] = [];
  for (const row of data) {
    for (const key of Object.keys(row)) if (!keys.includes(key)) keys.push(key);
  }
  const columns = keys.map((key) => ({
    header: key,
    value: (row: Record<string, unknown>) => row[key],
  }));
  renderRows(io, data, columns, options);
}

const BORDERLESS = {
  top: '',
  'top-mid': '',
  'top-left': '',
  'top-right': '',
  bottom: '',
  'bottom-mid': '',
  'bottom-left': '',
  'bottom-right': '',
  left: '',
  'left-mid': '',
  mid: '',
  'mid-mid': '',
  right: '',
  'right-mid': '',
  middle: '',
};
