// Keyrings that stand for the system's in in-process tests (src/config/key-store.ts, Keyring):
// one that works (in memory, per test), and the ways a real one fails.
import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import type { Keyring, KeyringLoader } from '../../src/config/key-store.js';
import { afterThisTest } from './cleanup.js';

/** A working keyring in memory; `entries` is what it holds, by account. */
export interface MemoryKeyring {
  entries: Map<string, string>;
  load: KeyringLoader;
  /** Every call made, in order: `get production`, `set production`, `delete eu`. */
  calls: string[];
}

export function memoryKeyring(initial: Record<string, string> = {}): MemoryKeyring {
  const entries = new Map(Object.entries(initial));
  const calls: string[] = [];
  const keyring: Keyring = {
    get: async (profile) => {
      calls.push(`get ${profile}`);
      return entries.get(profile) ?? null;
    },
    set: async (profile, key) => {
      calls.push(`set ${profile}`);
      entries.set(profile, key);
    },
    delete: async (profile) => {
      calls.push(`delete ${profile}`);
      return entries.delete(profile);
    },
  };
  return { entries, calls, load: async () => keyring };
}

/** The library cannot be loaded (an unsupported platform): the loader rejects. */
export const missingKeyring: KeyringLoader = async () => {
  throw new Error('no keyring library for sunos-sparc is installed');
};

/** A keyring whose every call fails as the library reports it (`message`). */
export function failingKeyring(message: string): KeyringLoader {
  const fail = async (): Promise<never> => {
    throw Object.assign(new Error(message), { code: 'GenericFailure' });
  };
  return async () => ({ get: fail, set: fail, delete: fail });
}

/** A locked Secret Service, as @napi-rs/keyring meets one: an unlock prompt nobody can answer. */
export function lockedKeyring(): KeyringLoader {
  return failingKeyring(
    "Couldn't access platform storage: Secret Service: unlock prompt was dismissed",
  );
}

let current: MemoryKeyring | undefined;

/** The keyring in-process runs use when a test gives none: one per test, empty at its start. */
export function testKeyring(): MemoryKeyring {
  if (!current) {
    current = memoryKeyring();
    afterThisTest(() => {
      current = undefined;
    });
  }
  return current;
}

/** The account a login gives a profile's new entry: its name and a random id. */
export function newAccount(profile: string) {
  return expect.stringMatching(new RegExp(`^${profile.replace(/\./g, '\\.')}-[0-9a-f]{16}$`));
}

/** The account config.json (`file`) names for the profile's entry. */
export function accountIn(file: string, profile: string): string {
  const account = JSON.parse(readFileSync(file, 'utf8')).profiles?.[profile]?.keyringAccount;
  expect(account).toEqual(newAccount(profile));
  return account;
}
