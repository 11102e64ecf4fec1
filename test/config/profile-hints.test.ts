// Hints name the profile in use as a command to paste into a shell.
import { describe, expect, it } from 'vitest';
import { loginHint, rejectedKeyHint } from '../../src/config/profile-hints.js';

describe('the hints for a missing or rejected key', () => {
  it.each([
    // From the config: a plain `store …` uses it already.
    [{ name: 'staging', source: 'config' as const }, 'run `store auth login` or set STORE_API_KEY'],
    // From -p or STORE_PROFILE: written out, so the command does the same without them.
    [
      { name: 'staging', source: 'env' as const },
      'run `store -p staging auth login` or set STORE_API_KEY',
    ],
    // A hand-written name a shell would split, or whose quote would end the word: quoted.
    [
      { name: 'my prof', source: 'flag' as const },
      "run `store -p 'my prof' auth login` or set STORE_API_KEY",
    ],
    [
      { name: "o'brien", source: 'flag' as const },
      "run `store -p 'o'\\''brien' auth login` or set STORE_API_KEY",
    ],
  ])('loginHint(%o)', (profile, hint) => {
    expect(loginHint(profile)).toBe(hint);
  });

  it('says where a rejected key came from, or how to store a new one', () => {
    expect(rejectedKeyHint({ name: 'eu', source: 'flag', keySource: 'env' })).toBe(
      'the key came from STORE_API_KEY',
    );
    expect(rejectedKeyHint({ name: 'eu', source: 'flag', keySource: 'config' })).toBe(
      'to store a new key for profile eu, run `store -p eu auth login`',
    );
  });
});
