// When an attempt may be sent again, and after how long. A method that is idempotent (GET,
// HEAD, PUT, DELETE) may run twice without harm, so it is retried whenever the server did not
// finish it; POST and PATCH only when the server certainly did not act (refused outright, 429).

import { NetworkError } from '../errors.js';
import { BROKEN_CODES, errorCode, headerValue } from './errors.js';

/** Further attempts after the first, by default. */
const DEFAULT_RETRIES = 2;
/** First backoff delay; it doubles with each retry, with jitter. */
const DEFAULT_RETRY_BASE_MS = 250;
/** The longest Retry-After honoured; a server asking for more gets this. */
const RETRY_AFTER_CAP_MS = 10_000;

const IDEMPOTENT = new Set(['GET', 'HEAD', 'PUT', 'DELETE', 'OPTIONS']);
/** The server did not do the work, or asks to come back later. */
const RETRY_STATUSES = new Set([429, 502, 503, 504]);

export function isIdempotent(method: string): boolean {
  return IDEMPOTENT.has(method.toUpperCase());
}

/** How retries wait; tests pass a clock that does not sleep. */
export interface RetryTiming {
  retries: number;
  /** Further attempts after HTTP 429 (the server did not act); `retries` when absent. */
  rateLimitRetries?: number;
  baseMs: number;
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
  random(): number;
}

export const realTiming = (retries = DEFAULT_RETRIES): RetryTiming => ({
  retries,
  baseMs: DEFAULT_RETRY_BASE_MS,
  // node:timers/promises loaded at the first wait, not with the module (most runs never wait).
  sleep: (ms, signal) =>
    process.getBuiltinModule('node:timers/promises').setTimeout(ms, undefined, { signal }),
  random: Math.random,
});

/** A connection failure worth another attempt: refused, a proxy that closed the connection
 * before its tunnel was up, or answered CONNECT with 408, 429 or 5xx (any method, nothing was
 * sent); reset or closed mid-exchange (idempotent methods only). Never a timeout. */
export function retriesFailure(method: string, error: unknown): boolean {
  if (!(error instanceof NetworkError)) return false;
  // A proxy's passing trouble (429, 5xx to CONNECT): the request never left.
  if (error.code === 'proxy_error') return error.passing;
  if (error.code !== 'network_error') return false;
  const code = errorCode(error.cause);
  if (code === 'ECONNREFUSED' || code === 'UND_ERR_PRX_CONN') return true;
  return isIdempotent(method) && BROKEN_CODES.has(code ?? '');
}

/** A status worth another attempt: 429 for every method (the server did not act on it);
 * 502, 503, 504 for idempotent methods only. */
export function retriesStatus(method: string, status: number): boolean {
  if (status === 429) return true;
  return isIdempotent(method) && RETRY_STATUSES.has(status);
}

/** Exponential backoff with jitter: half the delay fixed, half random. */
export function backoffMs(attempt: number, timing: Pick<RetryTiming, 'baseMs' | 'random'>): number {
  const delay = timing.baseMs * 2 ** attempt;
  return delay / 2 + timing.random() * (delay / 2);
}

const DAY = '(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)';
const MONTH = '(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)';
const TIME = '\\d{2}:\\d{2}:\\d{2}';
/** RFC 9110's HTTP-date: IMF-fixdate, RFC 850's form, asctime's. */
const HTTP_DATE = new RegExp(
  `^(?:${DAY}, \\d{2} ${MONTH} \\d{4} ${TIME} GMT|${DAY}[a-z]*, \\d{2}-${MONTH}-\\d{2} ${TIME} GMT|${DAY} ${MONTH} [ \\d]\\d ${TIME} \\d{4})$`,
);

/** An HTTP-date (any of its three forms) in ms since the epoch; undefined for anything else,
 * which Date.parse would read all the same (`-1` as 2001, `Mon 5` as a date long past). */
export function httpDateMs(text: string): number | undefined {
  if (!HTTP_DATE.test(text)) return undefined;
  // asctime's form names no zone, and is GMT: Date.parse would take it as local time.
  const ms = Date.parse(text.endsWith('GMT') ? text : `${text} GMT`);
  return Number.isNaN(ms) ? undefined : ms;
}

/** Retry-After in seconds or as an HTTP-date, capped; undefined when absent or unreadable. */
export function retryAfterMs(
  value: string | string[] | undefined,
  now = Date.now(),
): number | undefined {
  const text = headerValue(value)?.trim();
  if (!text) return undefined;
  // Only an HTTP-date in one of its three forms goes to Date.parse, which would read `1.5`,
  // `-5` or `Mon 5` as dates long past, and so a wait of 0 ms.
  let ms = Number.NaN;
  if (/^\d+$/.test(text)) ms = Number(text) * 1000;
  else ms = (httpDateMs(text) ?? Number.NaN) - now;
  if (Number.isNaN(ms)) return undefined;
  return Math.min(Math.max(ms, 0), RETRY_AFTER_CAP_MS);
}
