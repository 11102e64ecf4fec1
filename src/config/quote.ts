// A value the user typed, quoted for an error line so that whatever is invisible in it
// shows: JSON quoting, and every control, format (bidi, zero-width) and space character
// other than the plain space as \uXXXX.
const INVISIBLE = /[\p{Cc}\p{Cf}\p{Z}]/gu;

export function quote(value: string): string {
  return JSON.stringify(value).replace(INVISIBLE, (ch) =>
    ch === ' ' ? ch : `\\u${(ch.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`,
  );
}
