// JSON that keeps int64 identifiers exact in both directions. Integers outside the
// safe range are parsed to BigInt (from the source text, not the rounded double) and
// written back digit for digit with JSON.rawJSON.

declare global {
  interface JSON {
    rawJSON(text: string): unknown;
  }
}

interface ReviverContext {
  source?: string;
}

const INTEGER_TEXT = /^-?\d+$/;

function reviveBigInts(this: unknown, _key: string, value: unknown, context?: ReviverContext) {
  if (
    typeof value === 'number' &&
    !Number.isSafeInteger(value) &&
    context?.source !== undefined &&
    INTEGER_TEXT.test(context.source)
  ) {
    return BigInt(context.source);
  }
  return value;
}

// An integer beyond 2^53 (9007199254740992) has at least 16 digits: text without such a run
// is parsed natively, without a reviver call for every value (several times faster).
const LONG_DIGIT_RUN = /\d{16}/;

/** Parses JSON text; integers beyond 2^53 come back as BigInt. Throws SyntaxError. */
export function parseJson(text: string): unknown {
  if (!LONG_DIGIT_RUN.test(text)) return JSON.parse(text);
  return JSON.parse(text, reviveBigInts as (key: string, value: unknown) => unknown);
}

function writeBigInts(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? JSON.rawJSON(value.toString()) : value;
}

// JSON.stringify escapes C0 controls (ESC among them) but not C1 controls (U+009B is a
// one-character CSI) nor line separators and bidi overrides: escaped too, the JSON is as exact
// (it parses back to the same string) and safe to print on a terminal.
const UNESCAPED_CONTROLS = /[\u0080-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function escapeControls(json: string): string {
  UNESCAPED_CONTROLS.lastIndex = 0;
  if (!UNESCAPED_CONTROLS.test(json)) return json;
  return json.replace(
    UNESCAPED_CONTROLS,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** Serialises a value; BigInt values are written as plain JSON integers. */
export function stringifyJson(value: unknown, indent?: number): string {
  let json: string;
  try {
    // Native and fast; it throws a TypeError only when it meets a BigInt.
    json = JSON.stringify(value, undefined, indent);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    json = JSON.stringify(value, writeBigInts, indent);
  }
  return escapeControls(json);
}
