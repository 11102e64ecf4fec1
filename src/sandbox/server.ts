// The sandbox: a reference server of the animal store service on node:http, for trying the
// CLI and for tests. Routing, auth and validation live here; the data lives in store.ts.
//
// Order of checks for every request, first failure wins:
//   unknown path 404 -> auth 401 -> method 405 -> Content-Type 415 -> body size 413
//   -> JSON 400 invalid_json -> schema / query / petId 400 -> pet missing 404 -> success.
// An unknown path answers 404 even without a key: it tells a caller with a wrong base URL
// (e.g. one missing /v1) what is wrong instead of blaming the key.
//
// Routes are per method: HEAD is answered wherever GET is (same status and headers, no
// body). PUT, PATCH and DELETE on /v1/pets/{petId} are the sandbox's own: the spec says
// operations that change or remove animals are "not shown".
import { createHash, timingSafeEqual } from 'node:crypto';
import {
  createServer,
  type IncomingMessage,
  maxHeaderSize,
  type ServerResponse,
  STATUS_CODES,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { stringifyJson } from '../json.js';
import {
  INT64_MAX,
  INT64_MIN,
  LIMIT_DEFAULT,
  LIMIT_MAX,
  LIMIT_MIN,
  NewMessage,
  NewPet,
  PET_GET_SUNSET,
  PET_STATUSES,
  PetStatus,
} from '../schemas.js';
import * as z from '../zod.js';
import { BodyError, parseBody } from './body.js';

export { announceSandbox } from './announce.js';

import { IdsExhaustedError, type PetPatch as PetPatchInput, StorageError, Store } from './store.js';

export interface SandboxOptions {
  port: number;
  host: string;
  apiKey: string;
  dataFile?: string;
  seed?: number;
  log?: (line: string) => void;
}

export interface Sandbox {
  /** Base URL including /v1, e.g. http://127.0.0.1:4010/v1. */
  url: string;
  port: number;
  close(): Promise<void>;
}

export const MAX_BODY_BYTES = 1024 * 1024;
// How much of a too-large body is read (and dropped) before the connection is cut.
const DRAIN_LIMIT_BYTES = 8 * MAX_BODY_BYTES;

// getPet is deprecated: RFC 9745 Deprecation (since 2026-01-01), RFC 8594 Sunset (its removal
// date, as the spec says) and a link to its replacement, on every response to GET (and
// HEAD) of the route, failures included; the sandbox's own methods on the path are not deprecated.
const DEPRECATION_HEADERS = {
  Deprecation: `@${Date.UTC(2026, 0, 1) / 1000}`,
  Sunset: new Date(`${PET_GET_SUNSET}T00:00:00Z`).toUTCString(),
  Link: '</v1/pets?status=available>; rel="successor-version"',
};

/** PATCH's body: any NewPet fields; `status: null` removes the status (merge patch). */
const PetPatch = z.looseObject({
  name: z.optional(NewPet.shape.name),
  categoryId: z.optional(NewPet.shape.categoryId),
  status: z.optional(z.nullable(PetStatus)),
}) satisfies z.ZodMiniType<PetPatchInput>;

/** A failure answered with the Error body {code, message, status}. */
class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly headers: Record<string, string> = {},
  ) {
    super(message);
  }
}

interface Request {
  req: IncomingMessage;
  query: URLSearchParams;
  params: string[];
  store: Store;
}
interface Reply {
  status: number;
  /** Left out for a reply without a body (204). */
  body?: unknown;
}
type Handler = (request: Request) => Reply | Promise<Reply>;

function listPets({ query, store }: Request): Reply {
  const limitText = singleParam(query, 'limit');
  const limit = limitText === undefined ? LIMIT_DEFAULT : Number(limitText);
  if (
    limitText !== undefined &&
    !(/^\d+$/.test(limitText) && limit >= LIMIT_MIN && limit <= LIMIT_MAX)
  ) {
    throw new HttpError(
      400,
      'invalid_query',
      `limit: must be an integer from ${LIMIT_MIN} to ${LIMIT_MAX}, got ${JSON.stringify(limitText)}`,
    );
  }
  const statusText = singleParam(query, 'status');
  const status = z.optional(PetStatus).safeParse(statusText);
  if (!status.success) {
    throw new HttpError(
      400,
      'invalid_query',
      `status: must be one of ${PET_STATUSES.join(', ')}, got ${JSON.stringify(statusText)}`,
    );
  }
  return { status: 200, body: store.listPets(limit, status.data) };
}

async function createPet({ req, store }: Request): Promise<Reply> {
  return { status: 201, body: await store.addPet(await readBody(req, NewPet)) };
}

/** The {petId} path segment as an int64. */
function petId(text: string): bigint {
  const id = /^-?\d+$/.test(text) ? BigInt(text) : undefined;
  if (id === undefined || id < INT64_MIN || id > INT64_MAX) {
    throw new HttpError(
      400,
      'invalid_pet_id',
      `petId: must be an integer in the int64 range, got ${JSON.stringify(text)}`,
    );
  }
  return id;
}

function found<T>(id: bigint, pet: T | undefined): T {
  if (pet === undefined) throw new HttpError(404, 'pet_not_found', `no pet with id ${id}`);
  return pet;
}

function getPet({ params: [text = ''], store }: Request): Reply {
  const id = petId(text);
  return { status: 200, body: found(id, store.getPet(id)) };
}

// The sandbox's own: PUT replaces the animal with a NewPet (a status left out is removed).
async function replacePet({ req, params: [text = ''], store }: Request): Promise<Reply> {
  const input = await readBody(req, NewPet);
  const id = petId(text);
  return { status: 200, body: found(id, await store.replacePet(id, input)) };
}

// The sandbox's own: PATCH changes only the NewPet fields given (JSON merge patch, RFC 7396:
// `"status": null` removes the status).
async function patchPet({ req, params: [text = ''], store }: Request): Promise<Reply> {
  const patch = await readBody(req, PetPatch, 415, MERGE_PATCH_TYPES);
  const id = petId(text);
  return { status: 200, body: found(id, await store.patchPet(id, patch)) };
}

// The sandbox's own: DELETE answers 204 without a body.
async function deletePet({ params: [text = ''], store }: Request): Promise<Reply> {
  const id = petId(text);
  found(id, (await store.deletePet(id)) || undefined);
  return { status: 204 };
}

// 201 like createPet: the message is a new resource.
async function sendMessage({ req, store }: Request): Promise<Reply> {
  const message = await store.addMessage((await readBody(req, NewMessage, 400)).message);
  return { status: 201, body: message };
}

function listOrders({ store }: Request): Reply {
  return { status: 200, body: store.listOrders() };
}

interface Operation {
  run: Handler;
  /** Headers on every response of this operation, failures included. */
  headers?: Record<string, string>;
}

interface Route {
  pattern: RegExp;
  operations: Record<string, Operation>;
}

const ROUTES: Route[] = [
  { pattern: /^\/v1\/pets$/, operations: { GET: { run: listPets }, POST: { run: createPet } } },
  {
    pattern: /^\/v1\/pets\/([^/]+)$/,
    operations: {
      GET: { run: getPet, headers: DEPRECATION_HEADERS },
      PUT: { run: replacePet },
      PATCH: { run: patchPet },
      DELETE: { run: deletePet },
    },
  },
  { pattern: /^\/v1\/messages$/, operations: { POST: { run: sendMessage } } },
  { pattern: /^\/v1\/store\/orders$/, operations: { GET: { run: listOrders } } },
];

/** The operation for a method; HEAD is GET without the body (node:http drops it). */
function operationFor(route: Route, method: string): Operation | undefined {
  if (Object.hasOwn(route.operations, method)) return route.operations[method];
  return method === 'HEAD' ? route.operations.GET : undefined;
}

function allowedMethods(route: Route): string {
  return Object.keys(route.operations)
    .flatMap((method) => (method === 'GET' ? ['GET', 'HEAD'] : [method]))
    .join(', ');
}

/** Path parameters, percent-decoded (`/v1/pets/%31` is pet 1). */
function pathParams(route: Route, pathname: string): string[] {
  return (route.pattern.exec(pathname)?.slice(1) ?? []).map((raw) => {
    try {
      return decodeURIComponent(raw);
    } catch {
      return raw; // a malformed escape is reported as written
    }
  });
}

/** A query parameter given at most once. */
function singleParam(query: URLSearchParams, name: string): string | undefined {
  const values = query.getAll(name);
  if (values.length > 1) throw new HttpError(400, 'invalid_query', `${name}: given more than once`);
  return values[0];
}

const JSON_TYPES = ['application/json'];
const MERGE_PATCH_TYPES = ['application/json', 'application/merge-patch+json'];

/** `wrongTypeStatus`: the spec gives 400 for a content type that is not JSON on the messaging
 * operation (4.4); elsewhere it is silent, and 415 is the HTTP answer. */
async function readBody<T extends z.ZodMiniType>(
  req: IncomingMessage,
  schema: T,
  wrongTypeStatus: 400 | 415 = 415,
  mediaTypes: string[] = JSON_TYPES,
): Promise<z.output<T>> {
  const mediaType = req.headers['content-type']?.split(';')[0]?.trim().toLowerCase() ?? '';
  if (!mediaTypes.includes(mediaType)) {
    const code = wrongTypeStatus === 415 ? 'unsupported_media_type' : 'invalid_content_type';
    throw new HttpError(wrongTypeStatus, code, `Content-Type must be ${mediaTypes.join(' or ')}`);
  }
  let json: unknown;
  try {
    json = parseBody(await readBytes(req));
  } catch (err) {
    if (err instanceof BodyError) throw new HttpError(400, err.code, err.message);
    throw err;
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const fields = parsed.error.issues.map((issue) => {
      const where = issue.path.length > 0 ? issue.path.join('.') : 'body';
      // A field left out is said so: "categoryId: must be an integer…" read as a wrong value.
      const missing = issue.path.length > 0 && valueAt(json, issue.path) === undefined;
      return `${where}: ${missing ? 'is required' : issue.message}`;
    });
    throw new HttpError(400, 'invalid_body', fields.join('; '));
  }
  return parsed.data;
}

/** The value at a path of parsed JSON (own properties only: `__proto__` is data). */
function valueAt(json: unknown, path: readonly PropertyKey[]): unknown {
  let value = json;
  for (const key of path) {
    if (typeof value !== 'object' || value === null || !Object.hasOwn(value, key)) {
      return undefined;
    }
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** Reads the body, refusing (without buffering) more than MAX_BODY_BYTES. */
function readBytes(req: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let refused = false;
    const refuse = () => {
      refused = true;
      chunks.length = 0;
      reject(
        new HttpError(
          413,
          'payload_too_large',
          `request body is larger than ${MAX_BODY_BYTES} bytes`,
        ),
      );
    };
    if (Number(req.headers['content-length']) > MAX_BODY_BYTES) refuse();
    req.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (!refused) return void (size > MAX_BODY_BYTES ? refuse() : chunks.push(chunk));
      // After the 413 the rest is read and dropped, up to a bound: closing a socket with
      // unread data resets the connection, and the client could lose the 413 before reading it.
      if (size > DRAIN_LIMIT_BYTES) req.socket.destroy();
    });
    req.on('end', () => resolve(Buffer.concat(chunks)));
    // The client went away mid-body: nobody reads the answer, but it must not count as a crash.
    req.on('error', () =>
      reject(new HttpError(400, 'incomplete_body', 'the request body was cut off')),
    );
  });
}

/** Checks `Authorization: Bearer <key>` in constant time. */
function keyChecker(apiKey: string): (header: string | undefined) => boolean {
  // Comparing SHA-256 digests gives timingSafeEqual equal-length buffers, so neither the
  // key's content nor its length leaks through timing.
  const digest = (text: string) => createHash('sha256').update(text).digest();
  const expected = digest(apiKey);
  return (header) => {
    const token = /^Bearer +(\S+) *$/i.exec(header ?? '')?.[1];
    return token !== undefined && timingSafeEqual(digest(token), expected);
  };
}

/** Writes a reply; `body` undefined is a reply without one (204). For HEAD, node:http sends
 * the headers (Content-Length included) and drops the body. */
function send(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
) {
  if (res.headersSent) return void res.destroy();
  if (body === undefined) {
    res.writeHead(status, headers);
    return void res.end();
  }
  const text = stringifyJson(body);
  res.writeHead(status, {
    ...headers,
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
  });
  res.end(text);
}

/** The answer to a failure: an HttpError as it is, the store's failures as 5xx. */
function httpError(err: unknown, log?: (line: string) => void): HttpError {
  if (err instanceof HttpError) return err;
  // 507: the server cannot store another pet, whatever is sent; a 4xx would blame a valid
  // request, a 500 would hide that it is a known, permanent limit.
  if (err instanceof IdsExhaustedError) return new HttpError(507, 'ids_exhausted', err.message);
  if (err instanceof StorageError) {
    log?.(`error: ${err.message}`);
    return new HttpError(500, 'storage_error', `${err.message}; nothing was stored`);
  }
  log?.(`error: ${(err as Error)?.stack ?? err}`);
  return new HttpError(500, 'internal_error', `internal error: ${(err as Error)?.message ?? err}`);
}

// Requests node:http cannot parse never reach the handler; answer them with an Error body too.
/** The method of a well-formed request line whose method node:http refused; undefined when
 * the line is not one (`NOT HTTP AT ALL`). */
function unknownMethod(err: NodeJS.ErrnoException): string | undefined {
  if (err.code !== 'HPE_INVALID_METHOD') return undefined;
  const raw = (err as { rawPacket?: Buffer }).rawPacket?.toString('latin1') ?? '';
  return /^([!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}) \S+ HTTP\/1\.[01]\r?\n/.exec(raw)?.[1];
}

function onClientError(err: NodeJS.ErrnoException, socket: Socket) {
  if (err.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
  const method = unknownMethod(err);
  const [status, code, message] =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? [431, 'headers_too_large', `the request headers are larger than ${maxHeaderSize} bytes`]
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? [408, 'request_timeout', 'the request did not arrive in time']
        : method !== undefined
          ? // A method node:http does not know (FOO, or `get`): 501, as RFC 9110 says for a
            // method the server does not recognise; one it knows but a path lacks gets 405.
            [501, 'not_implemented', `${method} is not a method this server implements`]
          : [400, 'bad_request', 'malformed or incomplete HTTP request'];
  const text = stringifyJson({ code, message, status });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json\r\n` +
      `Content-Length: ${Buffer.byteLength(text)}\r\nConnection: close\r\n\r\n${text}`,
  );
}

/** A host as a Host header names it: an IPv6 address in brackets. */
const hostText = (host: string) => (host.includes(':') ? `[${host}]` : host);

/** The Host values that name this server: each host with the port (and without it on port 80,
 * the default), in lower case. The first is the one the sandbox prints. */
function ownAddresses(hosts: readonly string[], port: number): Set<string> {
  const own = new Set<string>();
  for (const host of hosts) {
    const text = hostText(host).toLowerCase();
    own.add(`${text}:${port}`);
    if (port === 80) own.add(text);
  }
  return own;
}

/** The authority of an absolute-form request target (`GET http://host:port/v1/pets`), which
 * RFC 9112 says wins over the Host header; undefined for the usual origin form. */
function absoluteAuthority(target: string | undefined): string | undefined {
  return /^[a-z][a-z0-9+.-]*:\/\/([^/?#]*)/i.exec(target ?? '')?.[1];
}

export async function startSandbox(options: SandboxOptions): Promise<Sandbox> {
  if (options.apiKey === '') throw new Error('the sandbox API key must not be empty');
  const store = await Store.open(options.dataFile, options.seed);
  const checkKey = keyChecker(options.apiKey);

  const dispatch = (
    req: IncomingMessage,
    res: ServerResponse,
    pathname: string,
    search: string,
  ) => {
    const route = ROUTES.find((candidate) => candidate.pattern.test(pathname));
    if (route === undefined) throw new HttpError(404, 'not_found', `no such path: ${pathname}`);
    const method = req.method ?? '';
    const operation = operationFor(route, method);
    for (const [name, value] of Object.entries(operation?.headers ?? {})) {
      res.setHeader(name, value);
    }
    if (!checkKey(req.headers.authorization)) {
      throw new HttpError(
        401,
        'unauthorized',
        'missing or invalid API key (Authorization: Bearer <key>)',
        {
          'WWW-Authenticate': 'Bearer',
        },
      );
    }
    if (operation === undefined) {
      throw new HttpError(405, 'method_not_allowed', `${method} is not allowed on ${pathname}`, {
        Allow: allowedMethods(route),
      });
    }
    const params = pathParams(route, pathname);
    return operation.run({ req, query: new URLSearchParams(search), params, store });
  };

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const started = performance.now();
    // The absolute form (`GET http://host/v1/pets`), which RFC 9112 says a server must accept:
    // its path is the request's.
    const target = (req.url ?? '/').replace(/^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i, '') || '/';
    const queryStart = target.indexOf('?');
    const pathname = queryStart < 0 ? target : target.slice(0, queryStart);
    // The query is left out of the log: it is the one part of a request a caller might put a
    // secret in. Headers (and so the key) are never logged.
    res.on('close', () => {
      const duration = Math.round(performance.now() - started);
      const status = res.writableFinished ? res.statusCode : 'aborted'; // client left first
      options.log?.(`${req.method} ${pathname} ${status} ${duration}ms`);
    });
    new Promise<Reply>((resolve) => {
      // RFC 9112: an HTTP/1.1 request without Host is answered 400.
      if (req.headers.host === undefined && req.httpVersion !== '1.0') {
        throw new HttpError(400, 'bad_request', 'an HTTP/1.1 request needs a Host header');
      }
      // DNS rebinding: a web page whose name was made to point at 127.0.0.1 would be of the
      // same origin as the sandbox, and could use it with its well-known key. Its requests
      // carry the page's name: only this server's own address is answered.
      const authority = absoluteAuthority(req.url) ?? req.headers.host;
      if (authority !== undefined && !ownHosts.has(authority.toLowerCase())) {
        throw new HttpError(
          421,
          'misdirected_request',
          `this sandbox answers only requests addressed to it (Host: ${[...ownHosts][0]})`,
        );
      }
      // Only 100-continue is understood (node:http answers it before this runs).
      const expect = req.headers.expect;
      if (expect !== undefined && expect.toLowerCase() !== '100-continue') {
        throw new HttpError(
          417,
          'expectation_failed',
          `Expect: ${expect} is not supported (only 100-continue)`,
        );
      }
      resolve(dispatch(req, res, pathname, queryStart < 0 ? '' : target.slice(queryStart + 1)));
    }).then(
      (reply) => send(res, reply.status, reply.body),
      (err: unknown) => {
        const { status, code, message, headers } = httpError(err, options.log);
        send(res, status, { code, message, status }, headers);
      },
    );
  };
  // Node would answer a request without Host, or with an Expect it does not know, itself and
  // with an empty body: both come to `handle`, for the Error body every failure gets.
  let ownHosts = new Set<string>();
  const server = createServer({ requireHostHeader: false }, handle);
  server.on('checkExpectation', handle);
  server.on('clientError', onClientError);

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, options.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  // Bound to every interface: print the loopback address, which the CLI (and its key) will use.
  const reachable = { '0.0.0.0': '127.0.0.1', '::': '::1' }[options.host] ?? options.host;
  const host = hostText(reachable);
  ownHosts = ownAddresses([reachable, '127.0.0.1', 'localhost', '::1', options.host], port);

  let closing: Promise<void> | undefined;
  return {
    url: `http://${host}:${port}/v1`,
    port,
    close() {
      closing ??= (async () => {
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        server.closeAllConnections();
        await closed;
        store.close();
      })();
      return closing;
    },
  };
}
