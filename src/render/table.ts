// The terminal table: loaded (with chalk) only when stdout is a terminal, so --json and
// tab-separated output never pay for it. Borderless: columns padded to their width and two
// spaces apart, every line within the terminal's width, nothing wrapped.
//
// Drawn here rather than by cli-table3: cli-table3's layout is quadratic in the number of
// rows (docs/performance.md), overflows the stack on long lists (`push.apply`), and measures width with string-width 4, which counts most combining marks
// (Hebrew, Arabic, Indic) and ZWJ as a cell each, so such rows would be misaligned or cut.
import { Chalk, type ChalkInstance } from 'chalk';
import type { IOStreams } from '../io.js';
import { chunkedOut } from './chunks.js';
import { fitColumns, GAP } from './layout.js';
import { dim } from './style.js';
import { textWidth, truncate, truncateMiddle } from './width.js';

export type ColorFn = (text: string, chalk: ChalkInstance) => string;

/** Cells already sanitised, with each column's widest cell known. */
export interface CellTable {
  headers: string[];
  fixed: boolean[];
  /** Columns cut in the middle (URLs); the others are cut at the end. */
  cutMiddle?: boolean[];
  colors: (ColorFn | undefined)[];
  /** Widest cell of each column, header included. */
  natural: number[];
  rows: string[][];
  /** Columns left out before this table was made (too many to fit, see renderAny). */
  hidden?: number;
}

// Letters of right-to-left scripts (Hebrew, Arabic, Syriac, Thaana, N'Ko… and their
// presentation forms).
const RTL = /[\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufefc\u{10800}-\u{10fff}\u{1e800}-\u{1efff}]/u;
// Left-to-right mark: a terminal that applies the bidi algorithm would otherwise let a
// right-to-left cell and its neighbours (spaces, digits, another RTL cell) reorder the row.
// Marks on both sides keep the cell in its place; it takes no cell.
const LRM = '\u200e';

export function chalkFor(color: boolean): ChalkInstance {
  return new Chalk({ level: color ? 1 : 0 });
}

export function drawTable(io: IOStreams, table: CellTable): void {
  const { shown, widths } = fitColumns(table.natural, table.fixed, io.columns);
  const chalk = chalkFor(io.colorOut);
  const last = shown - 1;
  const line = (
    cells: readonly string[],
    style: (text: string, i: number) => string,
    header = false,
  ) => {
    let text = '';
    for (let i = 0; i < shown; i++) {
      const width = widths[i] as number;
      const raw = cells[i] ?? '';
      const rawWidth = textWidth(raw);
      const cut =
        !header && table.cutMiddle?.[i]
          ? truncateMiddle(raw, width, rawWidth)
          : truncate(raw, width, rawWidth);
      const cutWidth = cut === raw ? rawWidth : textWidth(cut);
      const shownText = RTL.test(cut) ? `${LRM}${cut}${LRM}` : cut;
      const styled = style(raw, i);
      text += styled === raw ? shownText : restyle(styled, raw, shownText);
      if (i < last) text += ' '.repeat(width - cutWidth + GAP);
    }
    return `${text.replace(/ +$/, '')}\n`;
  };

  const colorOf = (text: string, i: number) => {
    const color = table.colors[i];
    return io.colorOut && color && text !== '' ? color(text, chalk) : text;
  };
  const out = chunkedOut(io);
  out.add(line(table.headers, (text) => chalk.bold(text), true));
  for (const row of table.rows) out.add(line(row, colorOf));
  out.end();

  const hidden = (table.hidden ?? 0) + table.headers.length - shown;
  if (hidden > 0) {
    const note = `${hidden} more ${hidden === 1 ? 'column' : 'columns'} not shown for lack of width; pipe the output or use --json to see all`;
    io.err(`${dim(note, io.colorErr)}\n`);
  }
}

/** The styling chosen for the whole text, applied to its cut form (status colours are
 * picked by the full value). */
function restyle(styled: string, raw: string, cut: string): string {
  const at = styled.indexOf(raw);
  if (at === -1) return styled;
  return `${styled.slice(0, at)}${cut}${styled.slice(at + raw.length)}`;
}
