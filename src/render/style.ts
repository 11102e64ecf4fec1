// The few styles used outside tables, without loading chalk (which only the terminal table
// needs): the same codes chalk writes at level 1.

/** Dim text (hints, notes on stderr) when colour is allowed. */
export function dim(text: string, color: boolean): string {
  return color ? `\u001b[2m${text}\u001b[22m` : text;
}
