// The Secret Service read in process (src/config/secret-service.ts): D-Bus's wire format, the
// bus address, and the read against a bus of the test's own on a Unix socket, which answers as
// it is told and records what it is sent. The read against a real gnome-keyring is in
// test/e2e/keyring.test.ts.
import { symlinkSync, writeFileSync } from 'node:fs';
import { createServer, type Socket } from 'node:net';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type DBusValue,
  deleteSecret,
  encodeMessage,
  Field,
  type HeaderField,
  Kind,
  type Received,
  readSecret,
  receive,
  sessionBus,
  Writer,
} from '../../src/config/secret-service.js';
import { afterThisTest } from '../helpers/cleanup.js';
import { tempDir } from '../helpers/cli.js';

const GUID = '0123456789abcdef0123456789abcdef';
const ITEM = '/org/freedesktop/secrets/collection/login/7';
const SESSION = '/org/freedesktop/secrets/session/s1';
const ATTRIBUTES = { service: 'store', username: 'loc-0123456789abcdef' };
const SECRETS = {
  path: '/org/freedesktop/secrets',
  interface: 'org.freedesktop.Secret.Service',
  destination: 'org.freedesktop.secrets',
};

/** The reply to `call`: its body of type `signature`. */
function replyTo(call: Received, signature: string, body: DBusValue[], serial = 100): Buffer {
  return encodeMessage(
    Kind.reply,
    serial,
    [[Field.replySerial, ['u', call.serial]]],
    signature,
    body,
  );
}

function errorTo(call: Received, name: string, message: string): Buffer {
  const fields: HeaderField[] = [
    [Field.replySerial, ['u', call.serial]],
    [Field.errorName, ['s', name]],
  ];
  return encodeMessage(Kind.error, 100, fields, 's', [message]);
}

/** A variant holding a variant… `depth` deep, a string at the bottom. */
function nested(depth: number): DBusValue {
  let value: DBusValue = ['s', 'x'];
  for (let i = 1; i < depth; i += 1) value = ['v', value];
  return value;
}

/** A message of these header fields and body bytes, as no writer that checks would make it. */
function rawMessage(kind: Kind, fields: HeaderField[], body: Buffer): Buffer {
  const head = encodeMessage(kind, 100, fields);
  head.writeUInt32LE(body.length, 4);
  return Buffer.concat([head, body]);
}

/** An array of empty structs, 8 bytes long: with nothing to read in each, for ever. */
const EMPTY_STRUCTS = Buffer.from('0800000000000000' + '0000000000000000', 'hex');

/** What a bus answers to a call: bytes, or nothing (it stays silent); `{ bytes, end: true }`
 * closes the connection after them. */
type Answer = (call: Received) => Buffer | undefined | { bytes: Buffer; end: true };

/** The Secret Service as gnome-keyring answers, with `search`'s result and the secret's bytes. */
function secretService(
  search: [string[], string[]] = [[ITEM], []],
  secret: number[] = [...Buffer.from('key-5678')],
  /** What Delete answers: "/" when no prompt is needed. */
  prompt = '/',
): (call: Received) => Buffer | undefined {
  return (call) => {
    switch (call.fields.member) {
      case 'Delete':
        return replyTo(call, 'o', [prompt]);
      case 'Hello':
        // The bus's NameAcquired signal comes before Hello's reply, as dbus-daemon sends it.
        return Buffer.concat([
          encodeMessage(
            Kind.signal,
            1,
            [
              [Field.member, ['s', 'NameAcquired']],
              [Field.path, ['o', '/org/freedesktop/DBus']],
            ],
            's',
            [':1.9'],
          ),
          replyTo(call, 's', [':1.9']),
        ]);
      case 'OpenSession':
        return replyTo(call, 'vo', [['s', ''], SESSION]);
      case 'SearchItems':
        return replyTo(call, 'aoao', search);
      case 'GetSecrets': {
        // Another item's secret first, then the one asked for, whatever it is.
        const [[item]] = call.body as [string[]];
        return replyTo(call, 'a{o(oayays)}', [
          [
            [`${ITEM}0`, [SESSION, [], [...Buffer.from('other-key')], 'text/plain']],
            [item as string, [SESSION, [], secret, 'text/plain']],
          ],
        ]);
      }
      default:
        return undefined;
    }
  };
}

interface Bus {
  /** The environment that leads a read to this bus. */
  env: NodeJS.ProcessEnv;
  /** The socket's path. */
  path: string;
  /** The handshake's bytes, as the bus read them. */
  handshake: () => string;
  calls: Received[];
  /** Resolves when the client has closed its connection. */
  closed: Promise<void>;
}

/** A bus on a Unix socket in a temporary folder: `OK` (or `authReply`) to the handshake, then
 * `answer` for each call. */
async function fakeBus(answer: Answer, authReply = `OK ${GUID}\r\n`) {
  const path = join(tempDir(), 'bus');
  let handshake = '';
  const calls: Received[] = [];
  let closed!: () => void;
  const bus: Bus = {
    env: { DBUS_SESSION_BUS_ADDRESS: `unix:path=${path},guid=${GUID}` },
    path,
    handshake: () => handshake,
    calls,
    closed: new Promise((resolve) => {
      closed = resolve;
    }),
  };
  const server = createServer((socket: Socket) => {
    let received = Buffer.alloc(0);
    let begun = false;
    socket.on('close', () => closed());
    socket.on('data', (chunk) => {
      if (socket.writableEnded) return; // Closed by an answer: what comes after is not read.
      received = Buffer.concat([received, chunk]);
      if (!begun) {
        const end = received.indexOf('BEGIN\r\n');
        if (end < 0) return;
        handshake = received.toString('latin1', 0, end + 7);
        received = received.subarray(end + 7);
        begun = true;
        socket.write(authReply);
      }
      for (let next = receive(received); next; next = receive(received)) {
        received = received.subarray(next.length);
        calls.push(next.message);
        const bytes = answer(next.message);
        if (!bytes) continue;
        if (Buffer.isBuffer(bytes)) {
          socket.write(bytes);
        } else {
          socket.end(bytes.bytes);
          return;
        }
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(path, resolve));
  afterThisTest(() => new Promise((resolve) => server.close(resolve)));
  return bus;
}

/** Each call as `member (body)`, with its path, interface and destination checked. */
function described(calls: Received[]): string[] {
  return calls.map(({ fields, body }) => {
    if (fields.member === 'Hello') {
      expect(fields).toEqual({
        path: '/org/freedesktop/DBus',
        interface: 'org.freedesktop.DBus',
        member: 'Hello',
        destination: 'org.freedesktop.DBus',
      });
    } else if (fields.member === 'Delete') {
      expect(fields).toEqual({
        path: ITEM,
        interface: 'org.freedesktop.Secret.Item',
        member: 'Delete',
        destination: SECRETS.destination,
      });
    } else {
      expect(fields).toMatchObject(SECRETS);
    }
    return `${fields.member} ${JSON.stringify(body)}`;
  });
}

const uid = process.getuid?.() ?? 0;
const AUTH = `\0AUTH EXTERNAL ${Buffer.from(String(uid)).toString('hex')}\r\nBEGIN\r\n`;
const FIRST_CALLS = [
  'Hello []',
  'OpenSession ["plain",["s",""]]',
  'SearchItems [[["service","store"],["username","loc-0123456789abcdef"]]]',
];

describe.skipIf(process.platform === 'win32')('reading a secret over the session bus', () => {
  it('the one unlocked item: its secret, after the handshake and four calls', async () => {
    const bus = await fakeBus(secretService());
    expect(await readSecret(ATTRIBUTES, undefined, bus.env)).toBe('key-5678');
    await bus.closed;
    expect(bus.handshake()).toBe(AUTH);
    expect(described(bus.calls)).toEqual([...FIRST_CALLS, `GetSecrets [["${ITEM}"],"${SESSION}"]`]);
    expect(bus.calls.map((call) => call.serial)).toEqual([1, 2, 3, 4]);
  });

  it('no item at all: none (null, as the library says), no secret asked for', async () => {
    const bus = await fakeBus(secretService([[], []]));
    expect(await readSecret(ATTRIBUTES, undefined, bus.env)).toBeNull();
    await bus.closed;
    expect(described(bus.calls)).toEqual(FIRST_CALLS);
  });

  it.each([
    ['two items', [[ITEM, `${ITEM}0`], []]],
    ['a locked item', [[], [ITEM]]],
    ['an unlocked and a locked item', [[ITEM], [`${ITEM}0`]]],
  ] as [string, [string[], string[]]][])(
    '%s: no answer of its own, no secret asked for',
    async (_, search) => {
      const bus = await fakeBus(secretService(search));
      expect(await readSecret(ATTRIBUTES, undefined, bus.env)).toBeUndefined();
      await bus.closed;
      expect(described(bus.calls)).toEqual(FIRST_CALLS);
    },
  );

  it('a secret that is not UTF-8: no answer of its own', async () => {
    const bus = await fakeBus(secretService(undefined, [0x6b, 0xff, 0x79]));
    expect(await readSecret(ATTRIBUTES, undefined, bus.env)).toBeUndefined();
  });

  it('a secret that starts with a byte order mark keeps it, as the library does', async () => {
    const bus = await fakeBus(secretService(undefined, [0xef, 0xbb, 0xbf, 0x6b]));
    expect(await readSecret(ATTRIBUTES, undefined, bus.env)).toBe('\ufeffk');
  });

  it('a signal of a shape this read does not take, unasked for, is skipped unread', async () => {
    const service = secretService();
    const bus = await fakeBus((call) => {
      const answer = service(call);
      if (call.fields.member !== 'Hello' || !answer) return answer;
      const fields: HeaderField[] = [
        [Field.member, ['s', 'Odd']],
        [Field.signature, ['g', 'a()']],
      ];
      const odd = rawMessage(Kind.signal, fields, EMPTY_STRUCTS);
      return Buffer.concat([odd, answer]);
    });
    expect(await readSecret(ATTRIBUTES, undefined, bus.env)).toBe('key-5678');
  });

  it.each([
    // A string of one character and an empty one pass for one item and none.
    ['SearchItems', 'two strings', 'ss', ['x', '']],
    ['GetSecrets', 'a secret as text', 'a{os}', [[[ITEM, 'key-5678']]]],
    ['GetSecrets', 'a struct of another shape', 'a{o(ooss)}', [[[ITEM, [SESSION, '', 'k', 't']]]]],
    ['OpenSession', 'variants nested 100 deep', 'vo', [nested(100), SESSION]],
  ] as [string, string, string, DBusValue[]][])(
    '%s answering %s: no answer of its own',
    async (member, _, signature, body) => {
      const service = secretService();
      const bus = await fakeBus((call) =>
        call.fields.member === member ? replyTo(call, signature, body) : service(call),
      );
      expect(await readSecret(ATTRIBUTES, undefined, bus.env)).toBeUndefined();
    },
  );

  it('SearchItems answering an array of empty structs: no answer of its own, at once', async () => {
    const service = secretService();
    const bus = await fakeBus((call) =>
      call.fields.member === 'SearchItems'
        ? rawMessage(
            Kind.reply,
            [
              [Field.replySerial, ['u', call.serial]],
              [Field.signature, ['g', 'a()']],
            ],
            EMPTY_STRUCTS,
          )
        : service(call),
    );
    expect(await readSecret(ATTRIBUTES, AbortSignal.timeout(2000), bus.env)).toBeUndefined();
  });

  it('a header field of the wrong type (a signature sent as a string): no answer of its own', async () => {
    const service = secretService();
    const bus = await fakeBus((call) => {
      if (call.fields.member !== 'SearchItems') return service(call);
      const found = new Writer();
      found.write('ao', [ITEM]);
      found.write('ao', []);
      const fields: HeaderField[] = [
        [Field.replySerial, ['u', call.serial]],
        [Field.signature, ['s', 'aoao']],
      ];
      return rawMessage(Kind.reply, fields, found.toBuffer());
    });
    expect(await readSecret(ATTRIBUTES, undefined, bus.env)).toBeUndefined();
    expect(described(bus.calls)).toEqual(FIRST_CALLS);
  });

  it('a signal that names a call in its reply field is not its reply', async () => {
    const service = secretService();
    const bus = await fakeBus((call) => {
      const answer = service(call);
      if (call.fields.member !== 'SearchItems' || !answer) return answer;
      const fields: HeaderField[] = [[Field.replySerial, ['u', call.serial]]];
      const signal = encodeMessage(Kind.signal, 99, fields, 'aoao', [[ITEM, `${ITEM}0`], []]);
      return Buffer.concat([signal, answer]);
    });
    expect(await readSecret(ATTRIBUTES, undefined, bus.env)).toBe('key-5678');
  });

  it('a header field D-Bus does not name is ignored, as the specification says', async () => {
    const service = secretService();
    const bus = await fakeBus((call) => {
      if (call.fields.member !== 'SearchItems') return service(call);
      const fields: HeaderField[] = [
        [Field.replySerial, ['u', call.serial]],
        [42, ['s', 'a field of a later version']],
      ];
      return encodeMessage(Kind.reply, 100, fields, 'aoao', [[ITEM], []]);
    });
    expect(await readSecret(ATTRIBUTES, undefined, bus.env)).toBe('key-5678');
  });

  it('a server whose id is not the one the address names: no answer of its own', async () => {
    const bus = await fakeBus(secretService(), 'OK fedcba9876543210fedcba9876543210\r\n');
    expect(await readSecret(ATTRIBUTES, undefined, bus.env)).toBeUndefined();
    expect(described(bus.calls)).toEqual(FIRST_CALLS);
  });

  it('an error reply: no answer of its own', async () => {
    // To Hello, whose reply has the error's signature: it can be told only by its kind.
    const service = secretService();
    const bus = await fakeBus((call) =>
      call.fields.member === 'Hello'
        ? errorTo(call, 'org.freedesktop.DBus.Error.AccessDenied', 'not you')
        : service(call),
    );
    expect(await readSecret(ATTRIBUTES, undefined, bus.env)).toBeUndefined();
    await bus.closed;
    expect(described(bus.calls)).toEqual(FIRST_CALLS);
  });

  it.each([
    ['a refused handshake', 'REJECTED EXTERNAL\r\n'],
    ['an answer to AUTH of over 512 bytes without an end of line', `OK ${'0'.repeat(600)}`],
    // Read as a message, its length would be 24 bytes, and the read would wait for the rest.
    [
      'bytes that are not D-Bus after OK',
      `OK ${GUID}\r\nX\x02\x00\x01\x00\x00\x00\x00\x01\x00\x00\x00\x08\x00\x00\x00`,
    ],
    [
      'a message of over 1 MiB announced',
      `OK ${GUID}\r\nl\x02\x00\x01\x00\x00\x20\x00\x01\x00\x00\x00\x00\x00\x00\x00`,
    ],
  ])('%s: no answer of its own, at once', async (_, authReply) => {
    const bus = await fakeBus(() => undefined, authReply);
    expect(await readSecret(ATTRIBUTES, AbortSignal.timeout(2000), bus.env)).toBeUndefined();
    await bus.closed;
  });

  it('any byte of any answer changed: a key or none, never a throw or a hang', async () => {
    const members = ['Hello', 'OpenSession', 'SearchItems', 'GetSecrets'];
    await fc.assert(
      fc.asyncProperty(
        fc.constantFrom(...members),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        async (member, at, xor) => {
          const service = secretService();
          const bus = await fakeBus((call) => {
            const answer = service(call);
            if (call.fields.member !== member || !answer) return answer;
            const changed = Buffer.from(answer);
            changed[at % changed.length] = (changed[at % changed.length] as number) ^ xor;
            // Closed after it: a length made longer ends the read there, not at its limit.
            return { bytes: changed, end: true };
          });
          const read = await readSecret(ATTRIBUTES, undefined, bus.env);
          expect(read === undefined || typeof read === 'string').toBe(true);
        },
      ),
      { numRuns: 60 },
    );
  });

  const SEARCH = 'SearchItems [[["service","store"],["username","loc-0123456789abcdef"]]]';

  it('a removal: the one unlocked item deleted, with no session opened', async () => {
    const bus = await fakeBus(secretService());
    expect(await deleteSecret(ATTRIBUTES, undefined, bus.env)).toBe(true);
    await bus.closed;
    expect(bus.handshake()).toBe(AUTH);
    expect(described(bus.calls)).toEqual(['Hello []', SEARCH, 'Delete []']);
  });

  it.each([
    ['no item at all: false, nothing deleted', [[], []], '/', false, []],
    ['two items: no answer of its own', [[ITEM, `${ITEM}0`], []], '/', undefined, []],
    ['a locked item: no answer of its own', [[], [ITEM]], '/', undefined, []],
    [
      'a service that wants to prompt first: no answer of its own (the library prompts)',
      [[ITEM], []],
      '/org/freedesktop/secrets/prompt/p1',
      undefined,
      ['Delete []'],
    ],
  ] as [string, [string[], string[]], string, boolean | undefined, string[]][])(
    'a removal, %s',
    async (_, search, prompt, answer, more) => {
      const bus = await fakeBus(secretService(search, undefined, prompt));
      expect(await deleteSecret(ATTRIBUTES, undefined, bus.env)).toBe(answer);
      await bus.closed;
      expect(described(bus.calls)).toEqual(['Hello []', SEARCH, ...more]);
    },
  );

  it('a removal answered with an error: no answer of its own', async () => {
    const service = secretService();
    const bus = await fakeBus((call) =>
      call.fields.member === 'Delete'
        ? errorTo(call, 'org.freedesktop.Secret.Error.IsLocked', 'locked')
        : service(call),
    );
    expect(await deleteSecret(ATTRIBUTES, undefined, bus.env)).toBeUndefined();
  });

  it('a bus that never answers: the read ends when its signal aborts, its connection closed', async () => {
    const bus = await fakeBus(() => undefined);
    const controller = new AbortController();
    const reading = readSecret(ATTRIBUTES, controller.signal, bus.env);
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(bus.handshake()).toBe(AUTH);
    const reason = new Error('time limit');
    controller.abort(reason);
    await expect(reading).rejects.toBe(reason);
    await bus.closed;
  });

  it('no bus at a Unix address, or none at all: no answer, no connection', async () => {
    expect(await readSecret(ATTRIBUTES, undefined, {})).toBeUndefined();
    const tcp = { DBUS_SESSION_BUS_ADDRESS: 'tcp:host=127.0.0.1,port=1' };
    expect(await readSecret(ATTRIBUTES, undefined, tcp)).toBeUndefined();
    const missing = `unix:path=${join(tempDir(), 'nothing-here')}`;
    const none = { DBUS_SESSION_BUS_ADDRESS: missing };
    expect(await readSecret(ATTRIBUTES, undefined, none)).toBeUndefined();
  });
});

describe('the session bus address', () => {
  it.each([
    ['unix:path=/run/user/1000/bus', { path: '/run/user/1000/bus' }],
    ['unix:path=/tmp/dbus-abc,guid=0123', { path: '/tmp/dbus-abc', guid: '0123' }],
    ['unix:path=/tmp/a%20b%2Cc', { path: '/tmp/a b,c' }],
    // The first address is the one libdbus tries first: a later one may be another bus.
    ['unix:path=/tmp/first;unix:path=/tmp/second', { path: '/tmp/first' }],
    ['tcp:host=localhost,port=1;unix:path=/tmp/second', undefined],
    ['tcp:host=localhost,port=1', undefined],
    ['launchd:env=DBUS_LAUNCHD_SESSION_BUS_SOCKET', undefined],
    ['unix:tmpdir=/tmp', undefined],
  ])('%s → %o', (address, bus) => {
    expect(
      sessionBus({ DBUS_SESSION_BUS_ADDRESS: address, XDG_RUNTIME_DIR: '/run/user/7' }),
    ).toEqual(bus);
  });

  it('no address: the user bus in XDG_RUNTIME_DIR (systemd), as libdbus takes it', async () => {
    // A fake bus at that place: the read goes there.
    const bus = await fakeBus(secretService());
    const runtime = bus.path.slice(0, -'/bus'.length);
    expect(sessionBus({ XDG_RUNTIME_DIR: runtime })).toEqual({ path: bus.path });
    expect(sessionBus({ DBUS_SESSION_BUS_ADDRESS: '', XDG_RUNTIME_DIR: runtime })).toEqual({
      path: bus.path,
    });
    expect(await readSecret(ATTRIBUTES, undefined, { XDG_RUNTIME_DIR: runtime })).toBe('key-5678');
    expect(sessionBus({})).toBeUndefined();
    // Not there, a link to the socket, or a file: none, as libdbus says.
    expect(sessionBus({ XDG_RUNTIME_DIR: tempDir() })).toBeUndefined();
    const linked = tempDir();
    symlinkSync(bus.path, join(linked, 'bus'));
    expect(sessionBus({ XDG_RUNTIME_DIR: linked })).toBeUndefined();
    const file = tempDir();
    writeFileSync(join(file, 'bus'), '');
    expect(sessionBus({ XDG_RUNTIME_DIR: file })).toBeUndefined();
  });

  it.runIf(process.platform === 'linux')('an abstract socket: its name after a NUL', () => {
    expect(sessionBus({ DBUS_SESSION_BUS_ADDRESS: 'unix:abstract=/tmp/dbus-XYZ,guid=01' })).toEqual(
      {
        path: '\0/tmp/dbus-XYZ',
        guid: '01',
      },
    );
  });

  it('a malformed escape: no bus', async () => {
    expect(() => sessionBus({ DBUS_SESSION_BUS_ADDRESS: 'unix:path=/tmp/%zz' })).toThrow(URIError);
    const malformed = { DBUS_SESSION_BUS_ADDRESS: 'unix:path=/tmp/%zz' };
    expect(await readSecret(ATTRIBUTES, undefined, malformed)).toBeUndefined();
  });
});

describe('the wire format', () => {
  const path = fc.stringMatching(/^(\/[A-Za-z0-9_]{1,8}){1,4}$/);
  const bytes = fc.array(fc.integer({ min: 0, max: 255 }), { maxLength: 40 });
  const cases: [string, fc.Arbitrary<DBusValue>][] = [
    ['s', fc.string({ unit: 'grapheme' })],
    ['o', path],
    ['u', fc.nat({ max: 0xffffffff })],
    ['i', fc.integer({ min: -(2 ** 31), max: 2 ** 31 - 1 })],
    ['a{ss}', fc.array(fc.tuple(fc.string(), fc.string()), { maxLength: 5 })],
    ['ao', fc.array(path, { maxLength: 5 })],
    ['v', fc.string().map((text): DBusValue => ['s', text])],
    [
      'a{o(oayays)}',
      fc.array(fc.tuple(path, fc.tuple(path, bytes, bytes, fc.string())), { maxLength: 3 }),
    ],
  ];

  it.each(cases)('a message with a body of type %s reads back as written', (signature, value) => {
    fc.assert(
      fc.property(
        fc.string({ maxLength: 3 }),
        value,
        fc.nat({ max: 1000 }),
        (lead, body, serial) => {
          // A string before the value moves it to every alignment.
          const message = encodeMessage(Kind.reply, serial + 1, [], `s${signature}`, [lead, body]);
          const read = receive(message);
          expect(read?.length).toBe(message.length);
          expect(read?.message).toEqual({
            kind: Kind.reply,
            serial: serial + 1,
            fields: { signature: `s${signature}` },
            body: [lead, body],
          });
          expect(receive(message.subarray(0, message.length - 1))).toBeUndefined();
        },
      ),
    );
  });

  it.each([
    ['a dict entry whose key is not a basic type', 'a{vs}'],
    ['containers nested over 64 deep', `${'a'.repeat(65)}y`],
    ['a type this read does not take (a 64-bit number)', 'x'],
  ])('a body with %s is refused', (_, signature) => {
    const head = encodeMessage(Kind.reply, 1, [[Field.signature, ['g', signature]]]);
    head.writeUInt32LE(8, 4);
    expect(() => receive(Buffer.concat([head, Buffer.alloc(8)]))).toThrow(
      `a D-Bus signature this read does not take: ${signature.slice(0, 40)}`,
    );
  });

  it('a big-endian message', () => {
    // A reply (serial 7) to call 3, with the string "ok": as a big-endian machine sends it.
    const hex =
      '42020001 00000007 00000007 0000000f 05017500 00000003 08016700 01730000 00000002 6f6b00';
    expect(receive(Buffer.from(hex.replace(/ /g, ''), 'hex'))).toEqual({
      message: {
        kind: Kind.reply,
        serial: 7,
        fields: { replySerial: 3, signature: 's' },
        body: ['ok'],
      },
      length: 39,
    });
  });
});
