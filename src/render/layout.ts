// Column widths for a table that must fit a terminal: text columns are cut, widest first;
// fixed columns (identifiers) never are; columns that cannot get even a few cells are left out.

/** Cells between two columns. */
export const GAP = 2;
/** A cut column keeps at least this many cells (its text and an ellipsis). */
const MIN_CUT_WIDTH = 5;

export interface Fit {
  /** How many columns, from the left, are shown. */
  shown: number;
  /** The width of each shown column. */
  widths: number[];
}

/**
 * Widths for columns whose widest cell (header included) is `natural`, within `total` cells.
 * Linear in the number of columns, apart from sorting the ones that must be cut.
 */
export function fitColumns(
  natural: readonly number[],
  fixed: readonly boolean[],
  total: number,
): Fit {
  // Columns from the left while each still gets its minimum.
  let shown = 0;
  let need = 0;
  for (const [i, width] of natural.entries()) {
    const least = fixed[i] ? width : Math.min(width, MIN_CUT_WIDTH);
    const next = need + (i > 0 ? GAP : 0) + least;
    if (next > total && i > 0) break;
    need = next;
    shown = i + 1;
  }
  const widths = natural.slice(0, shown);
  let budget = total - GAP * (shown - 1);
  const cuttable: number[] = [];
  let wanted = 0;
  for (const [i, width] of widths.entries()) {
    if (fixed[i]) budget -= width;
    else {
      cuttable.push(i);
      wanted += width;
    }
  }
  if (wanted <= budget) return { shown, widths };

  // Water level: every cuttable column wider than `level` is cut to it (the rest of the
  // budget goes one cell each to the leftmost of them), narrower ones keep their width.
  const sorted = cuttable.map((i) => widths[i] as number).sort((a, b) => a - b);
  let rest = Math.max(budget, 0);
  let level = 0;
  let extra = 0;
  for (const [k, width] of sorted.entries()) {
    const count = sorted.length - k;
    if (width * count <= rest) {
      rest -= width;
      continue;
    }
    level = Math.floor(rest / count);
    extra = rest - level * count;
    break;
  }
  for (const i of cuttable) {
    if ((widths[i] as number) <= level) continue;
    widths[i] = level + (extra > 0 ? 1 : 0);
    if (extra > 0) extra -= 1;
  }
  return { shown, widths };
}
