// A key read from the Secret Service (Linux) in this process, over the session bus: the few
// D-Bus messages a read takes (Hello, OpenSession, SearchItems, GetSecrets), written here
// because the keyring library's read costs a child process (key-store.ts: a bus that never
// answers cannot otherwise be abandoned), a single executable cannot load that library at all,
// and a D-Bus library brings more code than this file. It answers only when the answer is
// plain: one unlocked item. Anything else (another bus address, no item, more than one, a
// locked one, an error, a message it does not take) leaves the call to the keyring library, so
// that what a user sees is the library's behaviour.
//
// The secret comes in a "plain" session, as libsecret's falls back to: in clear on the session
// bus's socket, which only this user's processes (and root) can reach. What that leaves open,
// and why not an encrypted one: docs/security.md.

/** A D-Bus value: a string (s, o, g), a number (y, u, i, b as 0/1), an array or struct (its
 * members in order; a dict entry is a pair), or a variant (`[signature, value]`). */
export type DBusValue = string | number | DBusValue[];

const BUS = { path: '/org/freedesktop/DBus', interface: 'org.freedesktop.DBus' };
const SECRETS = {
  destination: 'org.freedesktop.secrets',
  path: '/org/freedesktop/secrets',
  interface: 'org.freedesktop.Secret.Service',
};

/** A message larger than this is not one this read expects: a bus sending it is not trusted. */
const MAX_MESSAGE = 1 << 20;

/**
 * The session bus's socket, as libdbus finds it: from DBUS_SESSION_BUS_ADDRESS, its path (on
 * Linux, an abstract name after a NUL) and the server's id when the address names it, or, when
 * that is unset, `$XDG_RUNTIME_DIR/bus` (systemd's user bus: userBus()). Only the address's first entry is
 * taken, as it is the one libdbus connects to first; one that is not `unix:` with a path or an
 * abstract name (tcp:, launchd:) is none.
 */
export function sessionBus(env: NodeJS.ProcessEnv): { path: string; guid?: string } | undefined {
  const address = env.DBUS_SESSION_BUS_ADDRESS;
  if (!address) return env.XDG_RUNTIME_DIR ? userBus(`${env.XDG_RUNTIME_DIR}/bus`) : undefined;
  const first = address.split(';')[0] as string;
  if (!first.startsWith('unix:')) return undefined;
  const keys = new Map<string, string>();
  for (const pair of first.slice(5).split(',')) {
    const at = pair.indexOf('=');
    // Values are %-escaped (an address's bytes other than [-0-9A-Za-z_/.\\*]).
    if (at > 0) keys.set(pair.slice(0, at), decodeURIComponent(pair.slice(at + 1)));
  }
  const guid = keys.get('guid');
  const path = keys.get('path');
  if (path) return { path, guid };
  const abstract = keys.get('abstract');
  if (abstract && process.platform === 'linux') return { path: `\0${abstract}`, guid };
  return undefined;
}

/** systemd's user bus at `path`, taken as libdbus takes it: a socket itself (not a link to one)
 * that this user owns. */
function userBus(path: string): { path: string } | undefined {
  try {
    const stats = process.getBuiltinModule('node:fs').lstatSync(path);
    return stats.isSocket() && stats.uid === process.getuid?.() ? { path } : undefined;
  } catch {
    return undefined; // None there.
  }
}

/** The basic types this file reads and writes; with arrays, structs, dict entries and variants,
 * all that a read meets. Any other code (a valid one too: 64-bit numbers, doubles, file
 * descriptors) makes the message one this read does not take. */
const BASIC = 'ybuisog';
/** How deep containers may nest, as the D-Bus specification has it. (A signature's 255 bytes
 * need no check: its length is one byte on the wire.) */
const MAX_DEPTH = 64;

function badSignature(signature: string): Error {
  return new Error(`a D-Bus signature this read does not take: ${signature.slice(0, 40)}`);
}

/** Where the complete type that starts at `at` in `signature` ends. */
function typeEnd(signature: string, at: number, depth = 0): number {
  if (depth > MAX_DEPTH) throw badSignature(signature);
  const code = signature[at];
  if (code === 'a' && signature[at + 1] === '{') {
    // A dict entry: a basic key and one value, only as an array's element.
    const key = signature[at + 2];
    if (key === undefined || !BASIC.includes(key)) throw badSignature(signature);
    const end = typeEnd(signature, at + 3, depth + 1);
    if (signature[end] !== '}') throw badSignature(signature);
    return end + 1;
  }
  if (code === 'a') return typeEnd(signature, at + 1, depth + 1);
  if (code === '(') {
    // At least one member: an empty struct would read as nothing, for ever in an array.
    let next = typeEnd(signature, at + 1, depth + 1);
    while (signature[next] !== ')') next = typeEnd(signature, next, depth + 1);
    return next + 1;
  }
  if (code !== undefined && (BASIC.includes(code) || code === 'v')) return at + 1;
  throw badSignature(signature);
}

const parsed = new Map<string, string[]>();

/** The complete types of a signature, one by one (kept: an array's elements share theirs). */
function types(signature: string): string[] {
  let list = parsed.get(signature);
  if (list) return list;
  list = [];
  for (let at = 0; at < signature.length; ) {
    const end = typeEnd(signature, at);
    list.push(signature.slice(at, end));
    at = end;
  }
  // A bus sending signature after signature is not given the memory to keep them.
  if (parsed.size < 64) parsed.set(signature, list);
  return list;
}

function alignment(type: string): number {
  switch (type[0]) {
    case 'y':
    case 'g':
    case 'v':
      return 1;
    case '(':
    case '{':
      return 8;
    default:
      return 4;
  }
}

/** Writes values in D-Bus's wire format, little-endian. */
export class Writer {
  // Zero-filled, and never written twice: padding is zeros.
  private buffer = Buffer.alloc(512);
  length = 0;

  private room(count: number): void {
    if (this.length + count <= this.buffer.length) return;
    const larger = Buffer.alloc(Math.max(this.buffer.length * 2, this.length + count));
    this.buffer.copy(larger, 0, 0, this.length);
    this.buffer = larger;
  }

  align(to: number): void {
    const next = Math.ceil(this.length / to) * to;
    this.room(next - this.length);
    this.length = next;
  }

  private byte(value: number): void {
    this.room(1);
    this.buffer[this.length++] = value;
  }

  private u32(value: number): void {
    this.align(4);
    this.room(4);
    this.buffer.writeUInt32LE(value >>> 0, this.length);
    this.length += 4;
  }

  private text(value: string, lengthBytes: 1 | 4): void {
    const size = Buffer.byteLength(value);
    if (lengthBytes === 1) this.byte(size);
    else this.u32(size);
    this.room(size + 1);
    this.length += this.buffer.write(value, this.length);
    this.buffer[this.length++] = 0;
  }

  write(type: string, value: DBusValue): void {
    const code = type[0];
    if (code === 'y') this.byte(value as number);
    else if (code === 'u' || code === 'i' || code === 'b') this.u32(value as number);
    else if (code === 's' || code === 'o') this.text(value as string, 4);
    else if (code === 'g') this.text(value as string, 1);
    else if (code === 'v') {
      const [signature, inner] = value as [string, DBusValue];
      this.text(signature, 1);
      this.write(signature, inner);
    } else if (code === '(' || code === '{') {
      this.align(8);
      types(type.slice(1, -1)).forEach((member, index) => {
        this.write(member, (value as DBusValue[])[index] as DBusValue);
      });
    } else if (code === 'a') {
      const element = type.slice(1);
      this.u32(0);
      const lengthAt = this.length - 4;
      this.align(alignment(element));
      const start = this.length;
      for (const item of value as DBusValue[]) this.write(element, item);
      this.buffer.writeUInt32LE(this.length - start, lengthAt);
    } else throw new Error(`cannot write D-Bus type ${type}`);
  }

  toBuffer(): Buffer {
    return this.buffer.subarray(0, this.length);
  }
}

/** Reads values in D-Bus's wire format (either byte order) from `buffer`, whose offset 0 is
 * the message's start (alignment counts from there). */
class Reader {
  constructor(
    private readonly buffer: Buffer,
    private readonly little: boolean,
    public at = 0,
  ) {}

  align(to: number): void {
    this.at = Math.ceil(this.at / to) * to;
  }

  private need(count: number): void {
    if (this.at + count > this.buffer.length) throw new Error('a D-Bus message ends too soon');
  }

  private u32(): number {
    this.align(4);
    this.need(4);
    const value = this.little
      ? this.buffer.readUInt32LE(this.at)
      : this.buffer.readUInt32BE(this.at);
    this.at += 4;
    return value;
  }

  private text(length: number): string {
    this.need(length + 1);
    const value = this.buffer.toString('utf8', this.at, this.at + length);
    this.at += length + 1;
    return value;
  }

  read(type: string, depth = 0): DBusValue {
    if (depth > MAX_DEPTH) throw new Error('a D-Bus value nested too deep');
    const code = type[0];
    if (code === 'y') {
      this.need(1);
      return this.buffer[this.at++] as number;
    }
    if (code === 'u' || code === 'b') return this.u32();
    if (code === 'i') return this.u32() | 0;
    if (code === 's' || code === 'o') return this.text(this.u32());
    if (code === 'g') {
      this.need(1);
      return this.text(this.buffer[this.at++] as number);
    }
    if (code === 'v') {
      const signature = this.read('g') as string;
      const [inner, ...more] = types(signature);
      if (inner === undefined || more.length > 0) throw badSignature(signature);
      return [signature, this.read(inner, depth + 1)];
    }
    if (code === '(' || code === '{') {
      this.align(8);
      return types(type.slice(1, -1)).map((member) => this.read(member, depth + 1));
    }
    if (code === 'a') {
      const length = this.u32();
      const element = type.slice(1);
      this.align(alignment(element));
      const end = this.at + length;
      if (end > this.buffer.length) throw new Error('a D-Bus message ends too soon');
      const items: DBusValue[] = [];
      // Each element reads a byte at least (no empty struct passes typeEnd): this ends.
      while (this.at < end) items.push(this.read(element, depth + 1));
      return items;
    }
    throw new Error(`cannot read D-Bus type ${type}`);
  }
}

export enum Kind {
  call = 1,
  reply = 2,
  error = 3,
  signal = 4,
}

/** Header field codes. */
export enum Field {
  path = 1,
  interface = 2,
  member = 3,
  errorName = 4,
  replySerial = 5,
  destination = 6,
  sender = 7,
  signature = 8,
  unixFds = 9,
}

/** Each header field's type (the specification's): a field of another type is a broken message. */
const FIELD_TYPES = ['', 'o', 's', 's', 's', 'u', 's', 's', 'g', 'u'];

interface Call {
  path: string;
  interface: string;
  member: string;
  destination: string;
  signature?: string;
  body?: DBusValue[];
  /** The signature its reply must have: a reply of another shape is not read. */
  reply: string;
}

/** A header field: its code (Field) and its value as a variant. */
export type HeaderField = [number, [string, DBusValue]];

/** A message's bytes, little-endian: its kind (Kind), serial, header fields, and body (the
 * values of `signature`, which is added to the fields when not empty). */
export function encodeMessage(
  kind: number,
  serial: number,
  fields: HeaderField[],
  signature = '',
  body: DBusValue[] = [],
): Buffer {
  const encoded = new Writer();
  types(signature).forEach((type, index) => {
    encoded.write(type, body[index] as DBusValue);
  });
  const header = new Writer();
  for (const byte of ['l'.charCodeAt(0), kind, 0, 1]) header.write('y', byte);
  header.write('u', encoded.length);
  header.write('u', serial);
  header.write('a(yv)', signature ? [...fields, [Field.signature, ['g', signature]]] : fields);
  header.align(8);
  return Buffer.concat([header.toBuffer(), encoded.toBuffer()]);
}

function callMessage(serial: number, call: Call): Buffer {
  const fields: HeaderField[] = [
    [Field.path, ['o', call.path]],
    [Field.interface, ['s', call.interface]],
    [Field.member, ['s', call.member]],
    [Field.destination, ['s', call.destination]],
  ];
  return encodeMessage(Kind.call, serial, fields, call.signature, call.body);
}

/** A message received: its kind (Kind), serial, header fields by name, and body. */
export interface Received {
  kind: number;
  serial: number;
  fields: Partial<Record<keyof typeof Field, DBusValue>>;
  body: DBusValue[];
}

/**
 * The first whole message in `buffer`: it and its length, or undefined while it is not all
 * there. Its body is read only when `wanted` says so of the rest (a signal nobody asked for is
 * skipped unread). Throws for bytes that are not a D-Bus message this read takes, or one over
 * MAX_MESSAGE.
 */
export function receive(
  buffer: Buffer,
  wanted: (message: Received) => boolean = () => true,
): { message: Received; length: number } | undefined {
  if (buffer.length < 16) return undefined;
  const order = String.fromCharCode(buffer[0] as number);
  if ((order !== 'l' && order !== 'B') || buffer[3] !== 1) throw new Error('not a D-Bus message');
  const little = order === 'l';
  const head = new Reader(buffer, little, 4);
  const bodyLength = head.read('u') as number;
  const serial = head.read('u') as number;
  const fieldsLength = head.read('u') as number;
  const bodyAt = Math.ceil((16 + fieldsLength) / 8) * 8;
  const length = bodyAt + bodyLength;
  if (length > MAX_MESSAGE) throw new Error('a D-Bus message too large');
  if (buffer.length < length) return undefined;
  const whole = buffer.subarray(0, length);
  const message: Received = { kind: buffer[1] as number, serial, fields: {}, body: [] };
  for (const [code, [type, value]] of new Reader(whole, little, 12).read(
    'a(yv)',
  ) as HeaderField[]) {
    const expected = FIELD_TYPES[code];
    if (!expected) continue; // A field this version of D-Bus does not name: ignored, as it says.
    if (type !== expected) throw new Error('a D-Bus header field of the wrong type');
    message.fields[Field[code] as keyof typeof Field] = value;
  }
  if (wanted(message)) {
    // Offsets count from the message's start: the body's alignment is the same from there.
    const body = new Reader(whole, little, bodyAt);
    message.body = types((message.fields.signature as string | undefined) ?? '').map((type) =>
      body.read(type),
    );
  }
  return { message, length };
}

/** A call awaiting its reply: the reply's signature, and who awaits its body. */
interface Waiter {
  signature: string;
  resolve: (body: DBusValue[]) => void;
}

/** A connection to the bus: calls sent, their replies awaited by serial. */
class Connection {
  private received = Buffer.alloc(0);
  private serial = 0;
  private authenticated = false;
  /** The calls awaiting their reply, by serial: the reply's signature, and who awaits it. */
  private readonly waiting = new Map<number, Waiter>();
  private failed?: (error: Error) => void;
  /** Rejects at the first failure (a refusal, an error reply, bytes that are not D-Bus, the
   * connection closed), which ends the read. */
  readonly failure = new Promise<never>((_, reject) => {
    this.failed = reject;
  });

  constructor(
    private readonly socket: import('node:net').Socket,
    /** The server's id, when the bus address names it: another server is not the bus. */
    private readonly guid?: string,
  ) {
    this.failure.catch(() => {});
    socket.on('data', (chunk: Buffer) => {
      try {
        this.take(chunk);
      } catch (error) {
        this.fail(error as Error);
      }
    });
    socket.on('error', (error) => this.fail(error));
    socket.on('close', () => this.fail(new Error('the bus closed the connection')));
  }

  private fail(error: Error): void {
    this.failed?.(error);
    this.failed = undefined;
  }

  /**
   * Authenticates (SASL's EXTERNAL mechanism, as the user this process runs as) and sends
   * `calls`, all in one write: the bus reads what follows BEGIN as messages, and answers the
   * calls in order, so the handshake costs no round trip of its own (dbus-daemon and
   * dbus-broker both take it so).
   */
  begin(uid: number, calls: Call[]): Promise<DBusValue[]>[] {
    const hex = Buffer.from(String(uid), 'ascii').toString('hex');
    return this.send(calls, `\0AUTH EXTERNAL ${hex}\r\nBEGIN\r\n`);
  }

  /** Sends `calls` (after `prefix`) in one write; their replies' bodies. */
  send(calls: Call[], prefix = ''): Promise<DBusValue[]>[] {
    const replies = calls.map((call) => {
      const serial = ++this.serial;
      return Promise.race([
        new Promise<DBusValue[]>((resolve) => {
          this.waiting.set(serial, { signature: call.reply, resolve });
        }),
        this.failure,
      ]);
    });
    const first = this.serial - calls.length + 1;
    const messages = calls.map((call, index) => callMessage(first + index, call));
    // A read that ends at one failure leaves the other replies unawaited.
    for (const reply of replies) reply.catch(() => {});
    this.socket.write(Buffer.concat([Buffer.from(prefix, 'latin1'), ...messages]));
    return replies;
  }

  private take(chunk: Buffer): void {
    this.received = Buffer.concat([this.received, chunk]);
    if (!this.authenticated) {
      const end = this.received.indexOf('\r\n');
      if (end < 0) {
        if (this.received.length > 512) throw new Error('no answer to AUTH');
        return;
      }
      const line = this.received.toString('latin1', 0, end);
      if (!line.startsWith('OK ')) throw new Error(`the bus refused: ${line.slice(0, 40)}`);
      if (this.guid && line.slice(3) !== this.guid) throw new Error('another server than the bus');
      this.received = this.received.subarray(end + 2);
      this.authenticated = true;
    }
    // A signal (NameAcquired), or an answer to nothing asked, is not this read's business.
    const awaited = ({ kind, fields }: Received) =>
      (kind === Kind.reply || kind === Kind.error) &&
      this.waiting.has(fields.replySerial as number);
    for (;;) {
      const next = receive(this.received, awaited);
      if (!next) return;
      this.received = this.received.subarray(next.length);
      if (!awaited(next.message)) continue;
      const { kind, fields, body } = next.message;
      const replySerial = fields.replySerial as number;
      const waiter = this.waiting.get(replySerial) as Waiter;
      this.waiting.delete(replySerial);
      if (kind === Kind.error) throw new Error(`${fields.errorName}: ${String(body[0] ?? '')}`);
      if ((fields.signature ?? '') !== waiter.signature) {
        throw new Error(
          `a reply of signature ${String(fields.signature)}, not ${waiter.signature}`,
        );
      }
      waiter.resolve(body);
    }
  }
}

/** Attributes of an item: the keyring library's (`service`, `username`). */
type Attributes = Record<string, string>;

/**
 * The secret of the Secret Service's one unlocked item with these attributes, read in this
 * process: null when it holds no such item (locked or not), as the library says too;
 * undefined when it holds something else (more than one, a locked one) or this cannot tell
 * (see the top of this file). Rejects only when `signal` aborts (the connection closed then).
 */
export function readSecret(
  attributes: Attributes,
  signal?: AbortSignal,
  env = process.env,
): Promise<string | null | undefined> {
  return overBus(signal, env, async (connection, uid) => {
    const { unlocked, session } = await search(connection, uid, attributes, true);
    if (unlocked === null || unlocked === undefined) return unlocked;
    const [secrets] = (await connection.send([
      {
        ...SECRETS,
        member: 'GetSecrets',
        signature: 'aoo',
        body: [[unlocked], session as string],
        reply: 'a{o(oayays)}',
      },
    ])[0]) as [[string, [string, number[], number[], string]][]];
    const value = secrets.find(([item]) => item === unlocked)?.[1][2];
    if (value === undefined) return undefined;
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(
      Uint8Array.from(value),
    );
  });
}

/**
 * Deletes the Secret Service's one unlocked item with these attributes, in this process: true
 * once it is deleted, false when there is no such item, undefined as readSecret (and when the
 * service wants to prompt the user first: the library does that).
 */
export function deleteSecret(
  attributes: Attributes,
  signal?: AbortSignal,
  env = process.env,
): Promise<boolean | undefined> {
  return overBus(signal, env, async (connection, uid) => {
    const { unlocked } = await search(connection, uid, attributes, false);
    if (unlocked === null) return false;
    if (unlocked === undefined) return undefined;
    const [prompt] = (await connection.send([
      {
        destination: SECRETS.destination,
        path: unlocked,
        interface: 'org.freedesktop.Secret.Item',
        member: 'Delete',
        reply: 'o',
      },
    ])[0]) as [string];
    // "/": deleted, no prompt needed.
    return prompt === '/' ? true : undefined;
  });
}

/**
 * Runs `use` on a connection to the session bus: its answer, or undefined when there is no bus
 * to reach or anything fails; rejects only when `signal` aborts. The connection is closed after.
 */
async function overBus<T>(
  signal: AbortSignal | undefined,
  env: NodeJS.ProcessEnv,
  use: (connection: Connection, uid: number) => Promise<T | undefined>,
): Promise<T | undefined> {
  signal?.throwIfAborted();
  let bus: ReturnType<typeof sessionBus>;
  try {
    bus = sessionBus(env);
  } catch {
    return undefined; // A malformed %-escape.
  }
  const uid = process.getuid?.();
  if (bus === undefined || uid === undefined) return undefined;
  const { createConnection } = process.getBuiltinModule('node:net');
  const socket = createConnection({ path: bus.path });
  // Closed at the limit or Ctrl-C: the connection fails, and the catch below rethrows why.
  const close = () => socket.destroy();
  signal?.addEventListener('abort', close, { once: true });
  try {
    return await use(new Connection(socket, bus.guid), uid);
  } catch {
    if (signal?.aborted) throw signal.reason;
    return undefined;
  } finally {
    signal?.removeEventListener('abort', close);
    socket.destroy();
  }
}

/**
 * Authenticates, says Hello, opens a plain session when `session` is asked for, and searches:
 * the one unlocked item with these attributes (`unlocked`), null when there is none at all,
 * undefined when there is more than one or a locked one.
 */
async function search(
  connection: Connection,
  uid: number,
  attributes: Attributes,
  session: boolean,
): Promise<{ unlocked: string | null | undefined; session?: string }> {
  // The bus wants Hello first; the others follow it at once.
  const calls: Call[] = [{ ...BUS, destination: BUS.interface, member: 'Hello', reply: 's' }];
  if (session) {
    const body = ['plain', ['s', '']];
    calls.push({ ...SECRETS, member: 'OpenSession', signature: 'sv', body, reply: 'vo' });
  }
  const body = [Object.entries(attributes)];
  calls.push({ ...SECRETS, member: 'SearchItems', signature: 'a{ss}', body, reply: 'aoao' });
  const replies = connection.begin(uid, calls);
  await replies[0];
  const opened = session ? ((await replies[1]) as [unknown, string])[1] : undefined;
  const [unlocked, locked] = (await replies.at(-1)) as [string[], string[]];
  if (unlocked.length === 0 && locked.length === 0) return { unlocked: null };
  if (unlocked.length !== 1 || locked.length !== 0) return { unlocked: undefined };
  return { unlocked: unlocked[0], session: opened };
}
