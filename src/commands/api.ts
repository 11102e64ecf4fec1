// `store api <path>`: any request to the service, with the profile's key and every rule of the
// HTTP layer (retries by method, time limits, the body cap, proxies, Ctrl-C). The proof that
// the layer is general: nothing here is special-cased below this file.

import type { ApiClient, ApiResponse } from '../api/client.js';
import { isIdempotent } from '../api/retry.js';
import { statusText } from '../api/status-text.js';
import { FILES, words } from '../completion/hints.js';
import { quote } from '../config/quote.js';
import type { Context } from '../context.js';
import {
  asCliError,
  CancelledError,
  CliError,
  ExitCode,
  FlagError,
  notingMaybeActed,
  withHint,
} from '../errors.js';
import { fileProblem } from '../file-errors.js';
import { parseJson, stringifyJson } from '../json.js';
import { readAllBytes, utf8Text } from '../reading.js';
import { writeJson } from '../render/output.js';
import { sanitize, sanitizeLines } from '../render/sanitize.js';
import * as z from '../zod.js';
import { defineCommand } from './define.js';
import { fileName, hasUnreadableBytes, notUtf8, switchFlag } from './flags.js';
import { checkStdinReadable, openUntilCtrlC } from './input-file.js';

/** The paths of the spec (and the sandbox's own), offered by shell completion. */
const SPEC_PATHS = ['/pets', '/pets/{petId}', '/messages', '/store/orders'] as const;

/** Headers the HTTP layer sets itself; -H may not replace them. */
const RESERVED_HEADERS = new Set(['authorization', 'host', 'content-length', 'transfer-encoding']);
// Headers of the connection, which the HTTP client (undici) manages and refuses to be given.
const CONNECTION_HEADERS = new Set(['expect', 'keep-alive', 'upgrade']);
// Headers that servers and gateways read as the request's method: a GET with one may write
// (`store mcp`'s read-only api_get above all). The method is -X's.
const METHOD_OVERRIDE_HEADERS = new Set([
  'x-http-method-override',
  'x-http-method',
  'x-method-override',
]);

const METHOD = /^[A-Za-z]+$/;
const CONTROL = /[\x00-\x1f\x7f-\x9f]/;
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const repeatable = z._default(z.array(z.string()), []);

export interface ApiOptions {
  path: string;
  method?: string;
  rawField: string[];
  field: string[];
  input?: string;
  header: string[];
  include: boolean;
}

export const command = defineCommand({
  name: 'api',
  description: 'Make a request to the service with the profile’s key, and print the answer',
  args: {
    path: {
      name: '<path>',
      description: 'relative to the base URL (/pets?limit=5, pets/42), or a URL on its host',
      schema: z.string().check(
        z.minLength(1, 'the path must not be empty'),
        z.refine((text: string) => !hasUnreadableBytes(text), notUtf8('the path')),
        // The URL parser drops tab, CR and LF silently (`/pets\r\nX: y` would go as /petsX:%20y):
        // a path with any control character is refused, not sent as something else.
        z.refine(
          (text: string) => !CONTROL.test(text),
          'the path must not contain control characters (CR, LF, tab, escape…)',
        ),
      ),
      complete: words(SPEC_PATHS),
    },
  },
  flags: {
    method: {
      flags: '-X, --method <method>',
      description:
        'the HTTP method; default GET, but POST when fields or --input are given (-X GET -f status=sold sends fields as query parameters)',
      schema: z.optional(
        z.string().check(
          z.regex(METHOD, '--method must be an HTTP method such as GET or PUT'),
          z.refine(
            (method: string) => method.toUpperCase() !== 'CONNECT',
            '--method CONNECT opens a tunnel through a proxy; it is not a request store can send',
          ),
        ),
      ),
      complete: words(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']),
    },
    rawField: {
      flags: '-f, --raw-field <key=value>',
      description:
        'a string field of the JSON body (a query parameter with -X GET); without -X, fields send a POST; repeatable',
      mcpDescription: 'a query parameter, key=value; a list for several',
      schema: repeatable,
      repeatable: true,
    },
    field: {
      flags: '-F, --field <key=value>',
      description:
        'a typed field: numbers, true, false, null, @file for a file’s contents; repeatable',
      schema: repeatable,
      repeatable: true,
    },
    input: {
      flags: '--input <file>',
      description: 'the request body from a file (- for stdin), sent as it is',
      schema: z.optional(fileName('--input')),
      complete: FILES,
    },
    header: {
      flags: '-H, --header <header>',
      description: "an extra request header, 'Name: value'; repeatable",
      mcpDescription: "extra request headers, each 'Name: value'",
      schema: repeatable,
      repeatable: true,
    },
    include: switchFlag('-i, --include', 'print the status line and headers before the body'),
  },
  // GET only, so it changes nothing: -F's @file reads this machine's files, --input too, and
  // -i makes the output something else than the answer's body.
  mcp: {
    access: 'read',
    name: 'api_get',
    description:
      'Send a GET request to the service with the profile’s key; the result is the answer’s body',
    omit: ['field', 'input', 'include'],
    fixed: { method: 'GET' },
  },
  network: true,
  output: { shape: 'any' },
  examples: [
    // Quoted: zsh and fish read an unquoted ? as a wildcard and stop at "no matches".
    "store api '/pets?limit=5'",
    'store api -X GET /pets -f status=sold',
    'store api -X POST /pets -f name=Rex -F categoryId=1',
    'store api -X DELETE /pets/7',
    'store api /pets/7 -i',
    'store api --input pet.json /pets',
  ],
  check: (parsed): ApiOptions => {
    for (const text of parsed.header) parseHeader(text);
    for (const text of [...parsed.rawField, ...parsed.field]) splitField(text);
    return parsed;
  },
  run,
});

export async function run(opts: ApiOptions, ctx: Context): Promise<void> {
  const api = await ctx.api();
  const hasFields = opts.rawField.length + opts.field.length > 0;
  const method = (
    opts.method ?? (hasFields || opts.input !== undefined ? 'POST' : 'GET')
  ).toUpperCase();
  const fields = await readFields(opts, ctx);
  const url = targetUrl(api, opts.path);
  const headers = Object.fromEntries(opts.header.map(parseHeader));

  // Fields go in the query string of a request without a body: GET, HEAD, or one whose body
  // comes from --input.
  const inQuery = method === 'GET' || method === 'HEAD' || opts.input !== undefined;
  if (inQuery) {
    for (const [key, value] of fields) url.searchParams.append(key, queryText(value));
  }
  let body: { data: Buffer; contentType: string } | undefined;
  let json: Record<string, unknown> | undefined;
  if (opts.input !== undefined) {
    body = { data: await readInput(opts.input, ctx), contentType: 'application/json' };
  } else if (!inQuery && fields.length > 0) {
    json = Object.fromEntries(fields);
  }
  // Sending a POST or PATCH again could act twice (the others may simply be run again): a
  // failure says so when the server may have acted, a gateway's 502/504 among them.
  const noting = (error: unknown) =>
    isIdempotent(method)
      ? error
      : notingMaybeActed(error, `the server may have acted on the ${method}`);
  let response: Awaited<ReturnType<typeof api.request>>;
  try {
    response = await api.request({ method, path: url, headers, json, body });
  } catch (error) {
    throw noting(error);
  }
  if (response.status >= 200 && response.status < 300) {
    await printResponse(response, opts.include, api, ctx);
    return;
  }
  // A failed answer's error is what the command ends with: its status is the exit code, and
  // its hint says how many attempts were made and whether the server may have acted. What
  // printing the body met (a --jq filter failing on an Error body) gives way to it, said in
  // the hint.
  const error = api.errorFor(response);
  try {
    await printResponse(response, opts.include, api, ctx);
  } catch (problem) {
    withHint(error, asCliError(problem).message);
  }
  throw noting(error);
}

/** The URL of `path`: below the base URL, or a full URL on one of the profile's origins
 * (the key is never sent to another host). */
function targetUrl(api: ApiClient, path: string): URL {
  // A full URL: `scheme://…`, or http(s): in any form the URL parser reads (`http:host`).
  // Anything else is a path, a colon in it included (`pets:search`).
  if (!/^[a-z][a-z0-9+.-]*:\/\//i.test(path) && !/^https?:/i.test(path)) {
    const url = api.url(path);
    // `..` (or %2e%2e) would climb out of the base path: relative means below it.
    const root = api.origins.base.pathname.replace(/\/+$/, '');
    if (url.pathname !== root && !url.pathname.startsWith(`${root}/`)) {
      throw new FlagError(
        `${JSON.stringify(path)} leads out of the base URL's path ${root}; give a full URL to reach ${url.pathname} on that host`,
      );
    }
    return url;
  }
  let url: URL;
  try {
    url = new URL(path);
  } catch {
    throw new FlagError(`not a valid URL: ${JSON.stringify(path)}`);
  }
  const { base, messages } = api.origins;
  if (url.origin !== base.origin && url.origin !== messages.origin) {
    // A URL of a scheme without hosts of its own (file:, mailto:) has the origin "null".
    const where = url.origin === 'null' ? `a ${url.protocol} URL` : url.origin;
    throw new FlagError(
      `refusing to send the API key to ${where}: a full URL must be on the profile's host (${base.origin}${messages.origin === base.origin ? '' : ` or ${messages.origin}`}); nothing was sent`,
    );
  }
  return url;
}

function parseHeader(text: string): [string, string] {
  const colon = text.indexOf(':');
  const name = colon > 0 ? text.slice(0, colon).trim() : '';
  if (!HEADER_NAME.test(name)) {
    throw new FlagError(`--header must be 'Name: value' (got ${JSON.stringify(text)})`);
  }
  if (RESERVED_HEADERS.has(name.toLowerCase())) {
    throw new FlagError(`--header cannot set ${name}: store sets it itself`);
  }
  if (CONNECTION_HEADERS.has(name.toLowerCase())) {
    throw new FlagError(
      `--header cannot set ${name}: the connection's headers are the HTTP client's`,
    );
  }
  if (METHOD_OVERRIDE_HEADERS.has(name.toLowerCase())) {
    throw withHint(
      new FlagError(`--header cannot set ${name}: a server may read it as the method`),
      'choose the method with -X',
    );
  }
  return [name, text.slice(colon + 1).trim()];
}

function splitField(text: string): [string, string] {
  const equals = text.indexOf('=');
  if (equals <= 0) {
    throw new FlagError(`a field must be key=value (got ${JSON.stringify(text)})`);
  }
  const field: [string, string] = [text.slice(0, equals), text.slice(equals + 1)];
  if (hasUnreadableBytes(text)) throw new FlagError(notUtf8(`the field ${quote(field[0])}`));
  return field;
}

/** A JSON number's text (RFC 8259): what -F sends as a number. */
const JSON_NUMBER = /^-?(0|[1-9]\d*)(\.\d+)?([eE][+-]?\d+)?$/;

/** -F's value: a number as typed, true, false, null, or @file's contents. */
async function typedValue(text: string, ctx: Context): Promise<unknown> {
  if (text === 'true') return true;
  if (text === 'false') return false;
  if (text === 'null') return null;
  // Every number as typed (`1.50` stays `1.50`, `1e3` stays `1e3`, an int64 digit for digit,
  // `-0` keeps its sign, and one past int64 is a number the server may refuse, not a string):
  // JSON.stringify writes a raw JSON value as it is, in a body and in a query string alike.
  if (JSON_NUMBER.test(text)) return JSON.rawJSON(text);
  if (text.startsWith('@')) {
    // A JSON string: text, not bytes, which U+FFFD would stand in for.
    const name = text.slice(1);
    const notText = `-F: ${inputName(name)} is not UTF-8 text; nothing was sent`;
    return utf8Text(await readInput(name, ctx), notText);
  }
  return text;
}

async function readFields(opts: ApiOptions, ctx: Context): Promise<[string, unknown][]> {
  const fields: [string, unknown][] = opts.rawField.map(splitField);
  for (const text of opts.field) {
    const [key, value] = splitField(text);
    fields.push([key, await typedValue(value, ctx)]);
  }
  return fields;
}

function queryText(value: unknown): string {
  return typeof value === 'string' ? value : stringifyJson(value);
}

/** As the response body cap (src/api/transport.ts): a body, not whatever /dev/zero holds. */
const MAX_INPUT_BYTES = 32 * 1024 * 1024;

const inputName = (file: string) => (file === '-' ? 'stdin' : sanitize(file));

async function readInput(file: string, ctx: Context): Promise<Buffer> {
  // As bytes: a body need not be UTF-8, and is sent as it is.
  const limit = {
    maxBytes: MAX_INPUT_BYTES,
    tooLarge: `${inputName(file)} is over ${MAX_INPUT_BYTES / 1024 / 1024} MiB; nothing was sent`,
  };
  if (file === '-') {
    checkStdinReadable(ctx.io.stdin);
    return readAllBytes(ctx.io.stdin, limit, ctx.signal);
  }
  try {
    const handle = await openUntilCtrlC(file, ctx.signal);
    try {
      // Streamed, so that a FIFO or a device is read only up to the limit.
      return await readAllBytes(handle.createReadStream({ autoClose: false }), limit, ctx.signal);
    } finally {
      // Not awaited: after Ctrl-C the read may still be waiting for a FIFO's writer.
      handle.close().catch(() => {});
    }
  } catch (error) {
    if (error instanceof CancelledError || error instanceof FlagError) throw error;
    throw new FlagError(`cannot read ${sanitize(file)}: ${fileProblem(error)}`);
  }
}

/** The answer on stdout: JSON as sent (indented on a terminal, int64 exact), anything else
 * as text; the status line and headers first with -i. */
async function printResponse(
  response: ApiResponse,
  include: boolean,
  api: ApiClient,
  ctx: Context,
): Promise<void> {
  const { io } = ctx;
  // On a terminal, server text is shown as text; in a pipe it goes through untouched, but for
  // the key, which a server may echo (a 401's message): masked, as everywhere but auth token.
  const shown = (text: string) =>
    io.stdoutIsTTY ? sanitizeLines(api.redact(text)) : api.redact(text);
  if (include) {
    const lines = [`HTTP/1.1 ${response.status} ${statusText(response.status) ?? ''}`.trimEnd()];
    for (const [name, value] of Object.entries(response.headers)) {
      for (const one of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${one}`);
    }
    io.out(`${shown(lines.join('\n'))}\n\n`);
  }
  // Part of a body is not printed as if it were all of it (a `| jq` would read broken JSON): the
  // error line says it was cut off.
  const body = api.redactBytes(response.body);
  if (body.length === 0 || response.cut) return;
  const text = body.toString('utf8');
  let json: { data: unknown } | undefined;
  try {
    json = { data: parseJson(text) };
  } catch {
    // Not JSON: text on a terminal, bytes in a pipe.
  }
  // --jq and --json FIELDS take the answer's JSON; there is nothing to filter in other text.
  if (ctx.options.jq !== undefined || ctx.options.jsonFields) {
    if (json) {
      await writeJson(io, json.data, ctx.options);
      return;
    }
    // A failed answer that is not JSON (a proxy's HTML 502) prints nothing: a script reading
    // the filter's output gets no page it did not ask for, and the error line names the status.
    if (response.status < 200 || response.status >= 300) return;
    throw new CliError(
      '--jq and --json FIELDS need a JSON answer; this one is not JSON',
      ExitCode.failure,
      'not_json',
    );
  }
  if (!io.stdoutIsTTY) {
    // As sent, byte for byte (the key masked): a body need not be UTF-8 (decoding would turn
    // bytes into U+FFFD).
    io.out(body);
    if (json && body[body.length - 1] !== NEWLINE) io.out('\n');
    return;
  }
  // On a terminal a text ends its line, so that the error line or the prompt starts its own.
  const end = text.endsWith('\n') ? '' : '\n';
  io.out(json ? `${stringifyJson(json.data, 2)}\n` : `${shown(text)}${end}`);
}

const NEWLINE = 0x0a;
