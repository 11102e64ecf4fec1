// Did-you-mean for profile names, and the error for an unknown one.
import { describe, expect, it } from 'vitest';
import { suggestProfile, unknownProfileError } from '../../src/config/profiles.js';
import { FlagError } from '../../src/errors.js';

const KNOWN = ['production', 'staging', 'sandbox', 'eu-west', 'local'];

describe('suggestProfile', () => {
  it.each([
    ['stagin', 'staging'],
    ['stagign', 'staging'],
    ['prod', 'production'],
    ['Staging', 'staging'],
    ['sandbx', 'sandbox'],
    ['eu-wset', 'eu-west'],
    ['locl', 'local'],
  ])('%s → %s', (typed, meant) => {
    expect(suggestProfile(typed, KNOWN)).toBe(meant);
  });

  it.each([['qa'], ['x'], [''], ['completely-different']])('%j → nothing', (typed) => {
    expect(suggestProfile(typed, KNOWN)).toBeUndefined();
  });
});

describe('unknownProfileError', () => {
  it('suggests the close name, and says how to list and create', () => {
    const error = unknownProfileError('stagin', KNOWN);
    expect(error).toBeInstanceOf(FlagError);
    expect(error.exitCode).toBe(2);
    expect(error.message).toBe('unknown profile "stagin" (did you mean "staging"?)');
    expect(error.hint).toBe(
      'see `store profile list`, or create it with `store profile set stagin --base-url <url>`',
    );
  });

  it('says where the name came from when it was not typed', () => {
    expect(unknownProfileError('qa', KNOWN, 'STORE_PROFILE').message).toBe(
      'unknown profile "qa" (set in STORE_PROFILE)',
    );
    expect(unknownProfileError('sandbx', KNOWN, 'STORE_PROFILE').message).toBe(
      'unknown profile "sandbx" (set in STORE_PROFILE; did you mean "sandbox"?)',
    );
  });

  it('shows an escape sequence in the name as text, and offers no command that would fail', () => {
    const error = unknownProfileError('stagin\u001b', KNOWN);
    expect(error.message).toBe('unknown profile "stagin\\u001b" (did you mean "staging"?)');
    expect(error.hint).toBe('see `store profile list`');
  });
});
