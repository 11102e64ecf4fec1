// Server text is data: control characters (C0, DEL, C1), which carry ANSI/OSC escape
// sequences, and Unicode bidi controls (embeddings, overrides, isolates, and the ALM, LRM and
// RLM marks) and line separators are shown as visible escapes instead of being interpreted by
// the terminal. Tab and newline are escaped too, so a value stays in its cell.
const UNSAFE =
  /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

const NAMED: Record<string, string> = { '\t': '\\t', '\n': '\\n', '\r': '\\r' };

export function sanitize(text: string): string {
  return text.replace(UNSAFE, (ch) => {
    const named = NAMED[ch];
    if (named) return named;
    const code = ch.charCodeAt(0);
    return code <= 0xff
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}

/** Text of several lines, each line sanitised and the line breaks kept. */
export function sanitizeLines(text: string): string {
  return text.split('\n').map(sanitize).join('\n');
}

/** A field of a tab-separated row: sanitised, with a backslash written `\\`, so that a `\t` in
 * the output always stands for a tab (and `Rex\tJr` typed with a backslash stays apart from it):
 * a script can read every value back (PostgreSQL's text format does the same). */
export function tsvField(text: string): string {
  return sanitize(text.includes('\\') ? text.replaceAll('\\', '\\\\') : text);
}
