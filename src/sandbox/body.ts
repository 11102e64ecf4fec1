// A request body as the sandbox reads it: UTF-8 that must be valid, JSON whose numbers keep
// their exact value (int64 beyond 2^53, and integers written in exponent form such as 1e16),
// and strings that must be well-formed Unicode (SQLite would store a lone surrogate as U+FFFD).

import { LONE_SURROGATE, nestedTooDeep, TOO_DEEP } from '../json.js';

/** The body cannot be read as the JSON it claims to be; `code` is the Error body's. */
export class BodyError extends Error {
  constructor(
    readonly code: 'invalid_encoding' | 'invalid_json' | 'invalid_body',
    message: string,
  ) {
    super(message);
  }
}

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const PLAIN_INTEGER = /^-?\d+$/;
const NUMBER_PARTS = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** The exact integer a JSON number's text denotes, or undefined when it has a fraction. */
function exactInteger(source: string): bigint | undefined {
  if (PLAIN_INTEGER.test(source)) return BigInt(source);
  const [, sign = '', whole = '', fraction = '', exponentText = '0'] =
    NUMBER_PARTS.exec(source) ?? [];
  if (whole === '') return undefined;
  const exponent = Number(exponentText);
  const digits = `${whole}${fraction}`.replace(/^0+(?=\d)/, '');
  // value = digits × 10^(exponent − fraction.length)
  const scale = exponent - fraction.length;
  if (/^0+$/.test(digits)) return 0n;
  if (scale >= 0) {
    // Past about 10^19 the value is outside int64 anyway: keep the BigInt small.
    return scale > 40
      ? BigInt(`${sign}1${'0'.repeat(41)}`)
      : BigInt(`${sign}${digits}`) * 10n ** BigInt(scale);
  }
  const cut = digits.length + scale;
  const dropped = cut > 0 ? digits.slice(cut) : digits;
  if (!/^0*$/.test(dropped)) return undefined;
  return cut > 0 ? BigInt(`${sign}${digits.slice(0, cut)}`) : 0n;
}

interface ReviverContext {
  source?: string;
}

function revive(this: unknown, _key: string, value: unknown, context?: ReviverContext) {
  if (typeof value === 'string') {
    if (LONE_SURROGATE.test(value)) {
      throw new BodyError(
        'invalid_body',
        'strings must be well-formed Unicode (no lone surrogate)',
      );
    }
    return value;
  }
  if (typeof value !== 'number' || context?.source === undefined) return value;
  if (PLAIN_INTEGER.test(context.source) && Number.isSafeInteger(value)) return value;
  const exact = exactInteger(context.source);
  // A number written with a fraction that rounds to an integer (1.0000000000000001) is not an
  // integer: NaN makes an integer field refuse it; other fields are not integers anyway.
  if (exact === undefined) return Number.isInteger(value) ? Number.NaN : value;
  const asNumber = Number(exact);
  return Number.isSafeInteger(asNumber) ? asNumber : exact;
}

/** Decodes and parses a request body. Throws BodyError. */
export function parseBody(bytes: Buffer): unknown {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new BodyError('invalid_encoding', 'request body is not valid UTF-8');
  }
  let json: unknown;
  try {
    json = JSON.parse(text, revive as (key: string, value: unknown) => unknown);
  } catch (error) {
    if (error instanceof BodyError) throw error;
    // Valid JSON, but deeper than the reviver's recursion goes: not "not valid JSON".
    if (error instanceof RangeError) throw tooDeep();
    throw new BodyError(
      'invalid_json',
      `request body is not valid JSON: ${(error as Error).message}`,
    );
  }
  // The client's limit too (json.ts): what it checks before sending is what is refused here.
  if (nestedTooDeep(json)) throw tooDeep();
  return json;
}

const tooDeep = () => new BodyError('invalid_body', `request body ${TOO_DEEP}`);
