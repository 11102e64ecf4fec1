// JSON that keeps numbers exact in both directions. Integers outside the safe range are
// parsed to BigInt (from the source text, not the rounded double) and written back digit for
// digit; any other number a double cannot hold (1e400, 9007199254740993.0, 0.1000000000000000000001)
// is kept as the server wrote it, as a JSON.rawJSON value, which JSON.stringify writes as is.

declare global {
  interface JSON {
    rawJSON(text: string): unknown;
    isRawJSON(value: unknown): boolean;
  }
}

interface ReviverContext {
  source?: string;
}

const INTEGER_TEXT = /^-?\d+$/;

/** Sign, significant digits and exponent of a decimal number's text (`-1.50e3` → -, 15, 2). */
function decimalParts(text: string): [string, string, number] | undefined {
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!match) return undefined;
  const [, sign = '', whole = '', fraction = '', exponent = '0'] = match;
  let digits = `${whole}${fraction}`.replace(/^0+/, '');
  let power = Number(exponent) - fraction.length;
  const trimmed = digits.replace(/0+$/, '');
  power += digits.length - trimmed.length;
  digits = trimmed;
  return digits === '' ? [sign, '0', 0] : [sign, digits, power];
}

/** Whether the double parsed from `source` is exactly the number the text says, and writes
 * back with its sign (-0 does not). */
function sameNumber(source: string, value: number): boolean {
  if (!Number.isFinite(value)) return false;
  const written = decimalParts(source);
  const held = decimalParts(String(value));
  return written !== undefined && held !== undefined && written.join() === held.join();
}

function reviveNumbers(this: unknown, _key: string, value: unknown, context?: ReviverContext) {
  const source = context?.source;
  if (typeof value !== 'number' || source === undefined) return value;
  // -0 too is kept as written: JSON.stringify would drop its sign.
  if (INTEGER_TEXT.test(source) && !Object.is(value, -0)) {
    return Number.isSafeInteger(value) ? value : BigInt(source);
  }
  return sameNumber(source, value) ? value : JSON.rawJSON(source);
}

// A number a double may not hold exactly has 16 or more digits or an exponent (or is -0).
// Text without one after a `:`, `,` or `[` is parsed natively, without a reviver call for every value
// (several times faster).
const MAYBE_INEXACT = /(?:^|[:,[])\s*(?:-0|-?(?:\d+(?:\.\d+)?[eE]|(?:\d\.?){16}))/;

/** Parses JSON text; integers beyond 2^53 come back as BigInt, other numbers a double cannot
 * hold as JSON.rawJSON values of their text. Throws SyntaxError, or JsonDepthError for text
 * nested deeper than the reviver's recursion goes (some 2,000 levels: more than
 * MAX_JSON_DEPTH), which JSON.parse alone reads at any depth. */
export function parseJson(text: string): unknown {
  if (!MAYBE_INEXACT.test(text)) return JSON.parse(text);
  try {
    return JSON.parse(text, reviveNumbers as (key: string, value: unknown) => unknown);
  } catch (error) {
    // The text was read whole before the reviver ran: a RangeError here is its recursion.
    if (error instanceof RangeError) throw new JsonDepthError(TOO_DEEP);
    throw error;
  }
}

function writeBigInts(_key: string, value: unknown): unknown {
  return typeof value === 'bigint' ? JSON.rawJSON(value.toString()) : value;
}

// JSON.stringify escapes C0 controls (ESC among them) but not DEL, C1 controls (U+009B is a
// one-character CSI), line separators, bidi overrides and marks (ALM, LRM, RLM): escaped too,
// the JSON is as exact (it parses back to the same string) and safe to print on a terminal.
const UNESCAPED_CONTROLS =
  /[\u007f-\u009f\u061c\u200e\u200f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

function escapeControls(json: string): string {
  UNESCAPED_CONTROLS.lastIndex = 0;
  if (!UNESCAPED_CONTROLS.test(json)) return json;
  return json.replace(
    UNESCAPED_CONTROLS,
    (ch) => `\\u${ch.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** Half of a surrogate pair, alone: not well-formed Unicode, which a server may store as U+FFFD.
 * (With the u flag a whole pair is one code point, and does not match.) The surrogates' range,
 * which is all of `\p{Cs}`: a property class would have ICU build its set in every process. */
export const LONE_SURROGATE = /[\ud800-\udfff]/u;

/** The start of `text`, at most `units` UTF-16 units, never ending on half of a surrogate
 * pair (an emoji at the cut): shown text, and JSON under --json, hold no lone surrogate. */
export function cutText(text: string, units: number): string {
  const last = text.charCodeAt(units - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? units - 1 : units);
}

/** Whether a string anywhere in `value` holds a lone surrogate (`value` nested at most
 * MAX_JSON_DEPTH deep: nestedTooDeep first). */
export function hasLoneSurrogate(value: unknown): boolean {
  if (typeof value === 'string') return LONE_SURROGATE.test(value);
  if (typeof value !== 'object' || value === null || JSON.isRawJSON(value)) return false;
  return Object.values(value).some(hasLoneSurrogate);
}

/** How deep arrays and objects may nest in JSON that store sends or takes from a server, and
 * in a body the sandbox takes: far beyond any animal or message, and well within
 * JSON.stringify's recursion (about 4,000 levels, with Node's default stack). */
export const MAX_JSON_DEPTH = 1000;

/** Why JSON is refused for its depth (callers word their own sentence around it). */
export const TOO_DEEP = `nests more than ${MAX_JSON_DEPTH} levels deep`;

/** Whether arrays and objects in `value` nest deeper than MAX_JSON_DEPTH. Recursive, as deep
 * as MAX_JSON_DEPTH at most, and allocating nothing: an answer of a million objects is walked
 * in milliseconds. */
export function nestedTooDeep(value: unknown): boolean {
  return deeperThan(value, MAX_JSON_DEPTH);
}

/** Whether `value` holds more than `levels` levels of arrays and objects. */
function deeperThan(value: unknown, levels: number): boolean {
  if (typeof value !== 'object' || value === null || JSON.isRawJSON(value)) return false;
  if (levels === 0) return true;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      if (deeperThan(value[i], levels - 1)) return true;
    }
    return false;
  }
  // A parsed object: its own keys only (JSON.parse makes `__proto__` one of them).
  for (const key in value) {
    if (deeperThan((value as Record<string, unknown>)[key], levels - 1)) return true;
  }
  return false;
}

/** What parsed but cannot be written back: nested deeper than JSON.stringify's recursion goes
 * (JSON.parse is not recursive: a server can send 20,000 levels). */
export class JsonDepthError extends Error {
  override name = 'JsonDepthError';
}

/** Serialises a value; BigInt values are written as plain JSON integers. */
export function stringifyJson(value: unknown, indent?: number): string {
  let json: string;
  try {
    try {
      // Native and fast; it throws a TypeError only when it meets a BigInt.
      json = JSON.stringify(value, undefined, indent);
    } catch (error) {
      if (!(error instanceof TypeError)) throw error;
      json = JSON.stringify(value, writeBigInts, indent);
    }
  } catch (error) {
    // Only the stack's limit: a RangeError for a string too long for V8 is something else.
    if (error instanceof RangeError && /call stack/i.test(error.message)) {
      throw new JsonDepthError('the data is nested too deeply to be written as JSON');
    }
    throw error;
  }
  return escapeControls(json);
}
