// Where a profile's key is kept: the system keyring (Secret Service, Keychain, Credential
// Manager) through @napi-rs/keyring, one entry per profile of each config folder; or
// config.json when no keyring can be used, or when the user asks for the file (`auth login
// --insecure-storage`). config.json says which: `"keyStorage": "keyring"` in the profile marks
// a key in the keyring, so commands know where to look without asking the keyring, and a
// vanished entry is told from no key; `"keyringAccount"` names its entry.
import {
  AuthError,
  CancelledError,
  CliError,
  ExitCode,
  FlagError,
  messageOf,
  withHint,
} from '../errors.js';
import type { ConfigData, ConfigFile, StoredProfile } from './file.js';
import { profileExists } from './profiles.js';
import { deleteSecret, readSecret } from './secret-service.js';

/** The keyring's service name; the account is the profile's keyringAccount (keyringAccount()). */
const KEYRING_SERVICE = 'store';

/**
 * The account of the profile's entry. One recorded in config.json is the profile's name and a
 * random id, made at the login that stored the key: config folders with a profile of the same
 * name (a throw-away one in a test) each have their own entry, and a login in one never
 * replaces the key another sends. A profile marked as in the keyring without one was stored
 * before accounts were recorded: its entry is the profile's name (moved at its next login).
 */
export function keyringAccount(profile: string, stored: StoredProfile | undefined): string {
  return stored?.keyringAccount ?? profile;
}

function newAccount(profile: string): string {
  const { randomBytes } = process.getBuiltinModule('node:crypto');
  return `${profile}-${randomBytes(8).toString('hex')}`;
}

/** The entry of a key the profile no longer uses, which could not be removed (a warning). */
export interface StaleEntry {
  account: string;
  /** Why it stays (keyringFailure). */
  reason: string;
}

/** The warning line for an entry left in the keyring: `the old key` (a login replaced it) or
 * `the key` (its profile was removed). */
export function staleEntryWarning(
  profile: string,
  stale: StaleEntry,
  which = 'the old key',
): string {
  return `warning: ${which} of profile ${profile} stays in the system keyring (${stale.reason}): service "${KEYRING_SERVICE}", account "${stale.account}"`;
}

/** Entries by account (keyringAccount()). Each call rejects when the keyring cannot be used
 * (locked, no D-Bus session, refused). */
export interface Keyring {
  /** null: no entry for the account. */
  get(account: string, signal?: AbortSignal): Promise<string | null>;
  set(account: string, key: string, signal?: AbortSignal): Promise<void>;
  /** false: there was no entry. */
  delete(account: string, signal?: AbortSignal): Promise<boolean>;
}

/** The keyring, or a rejection whose message says why none can be used (an unsupported
 * platform, the single executable). Tests inject their own. */
export type KeyringLoader = () => Promise<Keyring>;

/**
 * How long one keyring call may take: a bus or service that says nothing for this long is
 * taken as one that cannot be used (an unlock prompt left unanswered that long too: unlock,
 * then run the command again), instead of holding the command for ever.
 */
export const KEYRING_TIMEOUT_MS = 5000;

/**
 * The child process that makes one call: the library connects to the keyring synchronously as
 * an entry is made, and then waits in a thread that nothing can stop, so neither this process's
 * event loop nor a worker thread (which the process must join to exit) can hold it. A child
 * is killed when the time limit or Ctrl-C ends the wait. The request comes on stdin (a key
 * never on a command line), the answer on stdout.
 */
const CALL = `
const input = JSON.parse(require('node:fs').readFileSync(0, 'utf8'));
const answer = (value) => process.stdout.write(JSON.stringify(value));
Promise.resolve()
  .then(() => {
    const entry = new (require(input.library).AsyncEntry)(input.service, input.account, {
      linux: { store: 'secret-service' },
    });
    if (input.op === 'get') return entry.getPassword();
    if (input.op === 'set') return entry.setPassword(input.key);
    return entry.deleteCredential();
  })
  .then((value) => answer({ value: value === undefined ? null : value }),
    (error) => answer({ error: String((error && error.message) || error) }));
`;

/** The library cannot run here (the single executable): what the call needed of it, in words.
 * Not a keyring that failed: what this process does itself can still be asked of it. */
class NoLibrary extends Error {
  constructor(op: string) {
    super(
      op === 'set'
        ? 'this single executable cannot load the keyring library'
        : 'this single executable uses the keyring only when it is open and holds one entry for the profile; it cannot load the keyring library',
    );
  }
}

/** The real keyring, one child process per call, but for a read or a removal that this process
 * can make itself on the Secret Service (secret-service.ts). The library is an optional
 * dependency with a native binary per platform, outside the bundle (scripts/build.js). A single
 * executable can neither load it nor run Node's `-e` in a child: it has those two alone. */
export const systemKeyring: KeyringLoader = async () => {
  const sea = process.getBuiltinModule('node:sea').isSea();
  let library: string | undefined; // Resolved at the first call that needs it.
  const call = (op: string, account: string, signal?: AbortSignal, key?: string) => {
    if (sea) throw new NoLibrary(op);
    library ??= libraryPath();
    return inChild(JSON.stringify({ library, service: KEYRING_SERVICE, account, op, key }), signal);
  };
  return {
    // The library's Linux store is the Secret Service (CALL); elsewhere it is the system's own.
    get: async (account, signal) => {
      if (process.platform === 'linux') {
        const key = await readSecret({ service: KEYRING_SERVICE, username: account }, signal);
        if (key !== undefined) return key;
      }
      return (await call('get', account, signal)) as string | null;
    },
    set: async (account, key, signal) => {
      await call('set', account, signal, key);
    },
    delete: async (account, signal) => {
      if (process.platform === 'linux') {
        const gone = await deleteSecret({ service: KEYRING_SERVICE, username: account }, signal);
        if (gone !== undefined) return gone;
      }
      return (await call('delete', account, signal)) === true;
    },
  };
};

/** The library's binding for this platform, as a path the child can require. Its package
 * first, as the library's index would find it on a common platform without the index's
 * look-ups (a musl check, a file tried beside it); the index where that package is not the one
 * installed. Resolved from the program's own file (bin/store.js), wherever the shell was. */
function libraryPath(): string {
  const { platform, arch, argv } = process;
  const { createRequire } = process.getBuiltinModule('node:module');
  const { realpathSync } = process.getBuiltinModule('node:fs');
  const abi = platform === 'linux' ? '-gnu' : platform === 'win32' ? '-msvc' : '';
  try {
    const { resolve } = createRequire(realpathSync(argv[1] ?? '.'));
    for (const name of [`@napi-rs/keyring-${platform}-${arch}${abi}`, '@napi-rs/keyring']) {
      try {
        return resolve(name);
      } catch {
        // Another libc or ABI (musl, gnueabihf): the index knows.
      }
    }
  } catch {
    // No program file to resolve from.
  }
  throw new Error(`no keyring library for ${platform}-${arch} is installed`);
}

/** Runs CALL with `request`: its value, or a rejection with the library's message; ended by
 * `signal` (the child killed). */
function inChild(request: string, signal?: AbortSignal): Promise<unknown> {
  const { spawn } = process.getBuiltinModule('node:child_process');
  return new Promise((resolve, reject) => {
    signal?.throwIfAborted();
    const child = spawn(process.execPath, ['-e', CALL], { stdio: ['pipe', 'pipe', 'ignore'] });
    let out = '';
    const onAbort = () => {
      child.kill('SIGKILL');
      reject(signal?.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk;
    });
    child.on('error', (error) => {
      signal?.removeEventListener('abort', onAbort);
      reject(error);
    });
    child.on('close', () => {
      signal?.removeEventListener('abort', onAbort);
      let answer: { value?: unknown; error?: string };
      try {
        answer = JSON.parse(out);
      } catch {
        answer = { error: 'the keyring call ended without an answer' };
      }
      if (answer.error !== undefined) reject(new Error(answer.error));
      else resolve(answer.value);
    });
    child.stdin.on('error', () => {
      // A child that ended early: its close says why.
    });
    child.stdin.end(request);
  });
}

/** A keyring call that did not answer within KEYRING_TIMEOUT_MS. */
class KeyringTimeout extends Error {
  constructor() {
    super(`it did not answer within ${KEYRING_TIMEOUT_MS / 1000} s`);
  }
}

/**
 * One call of the keyring, given a signal that aborts at the time limit or at Ctrl-C
 * (`signal`): by then it has answered, or it rejects (KeyringTimeout, or CancelledError for
 * Ctrl-C) whether or not the call itself heeds the signal.
 */
async function bounded<T>(
  loadKeyring: KeyringLoader,
  call: (keyring: Keyring, signal: AbortSignal) => Promise<T>,
  signal?: AbortSignal,
): Promise<T> {
  if (signal?.aborted) throw new CancelledError();
  // A timer of its own, cleared when the call ends (AbortSignal.timeout's stays, and costs a
  // command more to make: docs/performance.md).
  const limit = new AbortController();
  const timer = setTimeout(() => limit.abort(), KEYRING_TIMEOUT_MS);
  const either = signal ? AbortSignal.any([signal, limit.signal]) : limit.signal;
  try {
    const keyring = await loadKeyring();
    return await new Promise<T>((resolve, reject) => {
      const onAbort = () => reject(signal?.aborted ? new CancelledError() : new KeyringTimeout());
      either.addEventListener('abort', onAbort, { once: true });
      call(keyring, either)
        // A failure that comes with Ctrl-C (the child got the terminal's SIGINT too) is Ctrl-C.
        .then(resolve, (error) => reject(signal?.aborted ? new CancelledError() : error))
        .finally(() => either.removeEventListener('abort', onAbort));
    });
  } finally {
    clearTimeout(timer);
  }
}

/** Why the keyring cannot be used, in a few words for a warning or an error line. */
export function keyringFailure(error: unknown): string {
  if (error instanceof KeyringTimeout) return error.message;
  const message = messageOf(error);
  if (/D-?Bus/i.test(message)) return 'no D-Bus session';
  if (/locked|prompt was dismissed/i.test(message)) return 'it is locked';
  return message.replace(/\s+/g, ' ').trim();
}

/** Whether config.json marks the profile's key as being in the keyring. */
export function inKeyring(stored: StoredProfile | undefined): boolean {
  return stored?.keyStorage === 'keyring';
}

/** The key of a profile marked as in the keyring. Exit 4 when the entry is gone (deleted by
 * hand; a Secret Service whose locked collection holds nothing says the same) or the keyring
 * cannot be read (locked, no D-Bus session). */
export async function readFromKeyring(
  config: ConfigData,
  profile: string,
  loadKeyring: KeyringLoader,
  loginCommand: string,
  signal?: AbortSignal,
): Promise<string> {
  const account = keyringAccount(profile, config.profiles?.[profile]);
  let key: string | null;
  try {
    key = await bounded(loadKeyring, (keyring, limit) => keyring.get(account, limit), signal);
  } catch (error) {
    if (error instanceof CancelledError) throw error;
    throw withHint(
      new AuthError(
        `cannot read the key of profile ${profile} from the system keyring (${keyringFailure(error)})`,
      ),
      `unlock the keyring, or run \`${loginCommand}\` to store the key again`,
    );
  }
  if (key === null || key === '') {
    throw withHint(
      new AuthError(`the key of profile ${profile} is no longer in the system keyring`),
      `run \`${loginCommand}\` to store it again (or unlock the keyring, if it is locked)`,
    );
  }
  return key;
}

export interface SaveOptions {
  /** --insecure-storage: the file, on purpose. */
  insecure: boolean;
  signal?: AbortSignal;
}

export type SaveResult = (
  | { storage: 'keyring' }
  /** `failure`: why the keyring could not be used (none when the file was asked for). */
  | { storage: 'file'; failure?: string }
) & {
  /** The entries the profile no longer names that hold an old key and could not be removed. */
  stale: StaleEntry[];
};

/**
 * Stores `key` as the profile's key: in the keyring, with config.json marking it there,
 * naming its entry, and holding no key (a key it held is removed: moved); or, when the keyring
 * fails or the file is asked for, in config.json as before. A profile removed meanwhile:
 * exit 2, nothing kept.
 */
export async function saveKey(
  config: ConfigFile,
  profile: string,
  key: string,
  loadKeyring: KeyringLoader,
  options: SaveOptions,
): Promise<SaveResult> {
  const stored = config.read().profiles?.[profile];
  // The entry the profile has now, if any; the one it will have: its own, or a new one.
  const oldAccount = inKeyring(stored) ? keyringAccount(profile, stored) : undefined;
  const account = stored?.keyringAccount ?? newAccount(profile);
  let inKeyringNow = false;
  let failure: string | undefined;
  // Whether the keyring may be asked to remove an old entry (below): not once it just failed;
  // yes when only the library is missing (the single executable removes in process).
  let askAgain = true;
  let previous: string | null = null;
  if (!options.insecure) {
    try {
      if (oldAccount === account) {
        previous = await bounded(loadKeyring, (k, limit) => k.get(account, limit), options.signal);
      }
      await bounded(loadKeyring, (k, limit) => k.set(account, key, limit), options.signal);
      inKeyringNow = true;
    } catch (error) {
      if (error instanceof CancelledError) throw error;
      failure = keyringFailure(error);
      askAgain = error instanceof NoLibrary;
    }
  }
  // The entry config.json names when the lock is held: another login may have put its own
  // there since the read above. It is replaced, so it is removed below, as the old one is.
  let replaced: string | undefined;
  try {
    await config.update((data) => {
      const changed = profileToChange(data, profile);
      if (inKeyring(changed)) replaced = keyringAccount(profile, changed);
      delete changed.apiKey;
      delete changed.keyStorage;
      delete changed.keyringAccount;
      if (inKeyringNow) {
        changed.keyStorage = 'keyring';
        changed.keyringAccount = account;
      } else changed.apiKey = key;
    });
  } catch (error) {
    // config.json still says what it said: the keyring is put back as it was.
    if (inKeyringNow) await putBack(loadKeyring, account, previous);
    throw error;
  }
  const result: SaveResult = inKeyringNow
    ? { storage: 'keyring', stale: [] }
    : { storage: 'file', failure, stale: [] };
  // An entry the profile no longer names holds its old key: removed (the account of a
  // profile stored before accounts were recorded, or its entry now that the key is in the
  // file). One that stays is said to stay, as config.json no longer leads logout or profile
  // remove to it.
  for (const gone of new Set([oldAccount, replaced])) {
    if (gone === undefined || (inKeyringNow && gone === account)) continue;
    const reason = askAgain ? await removeEntry(loadKeyring, gone, options.signal) : failure;
    if (reason !== undefined) result.stale.push({ account: gone, reason });
  }
  return result;
}

/**
 * Forgets the profile's key wherever it is: the keyring's entry (when config.json marks one)
 * and config.json's copy. False when there was none. A keyring that cannot be reached: exit 1
 * and nothing changed, so that `auth status` still says where the key is.
 */
export async function removeKey(
  config: ConfigFile,
  profile: string,
  loadKeyring: KeyringLoader,
  signal?: AbortSignal,
): Promise<boolean> {
  const stored = config.read().profiles?.[profile];
  const marked = inKeyring(stored);
  if (!marked && stored?.apiKey === undefined) return false;
  if (marked) {
    const account = keyringAccount(profile, stored);
    try {
      await bounded(loadKeyring, (keyring, limit) => keyring.delete(account, limit), signal);
    } catch (error) {
      if (error instanceof CancelledError) throw error;
      throw new CliError(
        `cannot remove the key of profile ${profile} from the system keyring (${keyringFailure(error)}); nothing was changed`,
        ExitCode.failure,
        'keyring_error',
      );
    }
  }
  await config.update((data) => {
    const changed = data.profiles?.[profile];
    if (!changed) return;
    delete changed.apiKey;
    delete changed.keyStorage;
    delete changed.keyringAccount;
    if (Object.keys(changed).length === 0) delete data.profiles?.[profile];
  });
  return true;
}

/**
 * Removes the keyring entry `account` (a profile's that `profile remove` is about to remove,
 * or one its profile no longer uses): the reason it stays when it cannot be removed, for a
 * warning.
 */
export async function removeEntry(
  loadKeyring: KeyringLoader,
  account: string,
  signal?: AbortSignal,
): Promise<string | undefined> {
  try {
    await bounded(loadKeyring, (keyring, limit) => keyring.delete(account, limit), signal);
    return undefined;
  } catch (error) {
    if (error instanceof CancelledError) throw error;
    return keyringFailure(error);
  }
}

function profileToChange(data: ConfigData, profile: string): StoredProfile {
  // Removed while the key was typed or checked: a key alone would bring back a profile
  // without URLs. Nothing is written.
  if (!profileExists(data, profile)) {
    throw new FlagError(`profile ${profile} was removed meanwhile; nothing was saved`);
  }
  data.profiles ??= {};
  data.profiles[profile] ??= {};
  return data.profiles[profile];
}

async function putBack(loadKeyring: KeyringLoader, account: string, previous: string | null) {
  try {
    await bounded(loadKeyring, (keyring, limit) =>
      previous === null
        ? keyring.delete(account, limit).then(() => {})
        : keyring.set(account, previous, limit),
    );
  } catch {
    // The error that stopped the save is the one to report.
  }
}
