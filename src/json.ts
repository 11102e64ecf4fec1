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

/** Serialises a value; BigInt values are written as plain JSON integers. */
export function stringifyJson(value: unknown, indent?: number): string {
  try {
    // Native and fast; it throws a TypeError only when it meets a BigInt.
    return JSON.stringify(value, undefined, indent);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    return JSON.stringify(value, writeBigInts, indent);
  }
}
