// What may be stored in or taken for a profile: URLs with nothing invisible in them, names
// from a small alphabet, and the warnings `profile set` prints for a URL it saves anyway.
import { describe, expect, it } from 'vitest';
import {
  baseUrlWarnings,
  checkKeyTarget,
  isLoopbackAddress,
  parseBaseUrl,
} from '../../src/api/urls.js';
import { checkProfileName, PROFILE_NAME_RULE } from '../../src/config/profiles.js';
import { FlagError } from '../../src/errors.js';

function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (error) {
    return error;
  }
  return undefined;
}

describe('parseBaseUrl', () => {
  it.each([
    ['an escape sequence', 'https://x.example/v1\u001b[31m', '"https://x.example/v1\\u001b[31m"'],
    ['a trailing newline', 'https://x.example/v1\n', '"https://x.example/v1\\n"'],
    ['a tab inside', 'https://x.exa\tmple/v1', '"https://x.exa\\tmple/v1"'],
    ['a leading space', ' https://x.example/v1', '" https://x.example/v1"'],
    ['DEL', 'https://x.example/v1\u007f', '"https://x.example/v1\\u007f"'],
    ['a C1 control (CSI)', 'https://x.example/v1\u009b31m', '"https://x.example/v1\\u009b31m"'],
    ['a bidi override', 'https://x.example/\u202ev1', '"https://x.example/\\u202ev1"'],
    ['a zero-width space', 'https://x.exam\u200bple/v1', '"https://x.exam\\u200bple/v1"'],
    ['a no-break space', 'https://x.example/v1\u00a0', '"https://x.example/v1\\u00a0"'],
    // Past U+FFFF: its surrogate pair, as JSON writes it (it was `\ue0001`, U+E000 then "1").
    ['a tag character', 'https://x.example/v1\u{e0001}', '"https://x.example/v1\\udb40\\udc01"'],
  ])('refuses %s (exit 2), quoting it safely', (_what, value, quoted) => {
    const error = thrown(() => parseBaseUrl(value, '--base-url'));
    expect(error).toBeInstanceOf(FlagError);
    expect((error as FlagError).exitCode).toBe(2);
    expect((error as FlagError).message).toBe(
      `--base-url must not contain control characters or white space: ${quoted}`,
    );
  });

  it('shows what is invisible in a value that is no URL at all', () => {
    expect(() => parseBaseUrl('\u009b31mnot a url', 'STORE_BASE_URL')).toThrow(
      'STORE_BASE_URL is not a valid URL: "\\u009b31mnot a url"',
    );
  });

  it('accepts an ordinary URL, percent-escapes included', () => {
    expect(parseBaseUrl('https://x.example/v1/a%20b', 'STORE_BASE_URL').href).toBe(
      'https://x.example/v1/a%20b',
    );
  });
});

describe('isLoopbackAddress (store sandbox --host)', () => {
  it.each([
    ['127.0.0.1', true],
    ['127.1.2.3', true],
    ['localhost', true],
    ['::1', true],
    ['0:0:0:0:0:0:0:1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:10.0.0.1', false],
    ['[::1]', false],
    ['0.0.0.0', false],
    ['::', false],
    ['192.0.2.1', false],
  ])('%s: %s', (address, loopback) => {
    expect(isLoopbackAddress(address)).toBe(loopback);
  });

  it('does not take `localhost.` for loopback: the resolver asks DNS for it, which may answer any address', () => {
    expect(isLoopbackAddress('localhost.')).toBe(false);
    expect(() => checkKeyTarget(new URL('http://localhost.:4010/v1'))).toThrow(
      expect.objectContaining({
        message: 'refusing to send the API key over plain HTTP to localhost.:4010',
        hint: 'use an https:// URL (plain http is allowed for loopback hosts only)',
      }),
    );
  });

  it('refuses a scheme other than http and https, with a hint', () => {
    expect(() => checkKeyTarget(new URL('ftp://pets.example/v1'))).toThrow(
      expect.objectContaining({
        name: 'FlagError',
        message: 'unsupported URL scheme ftp: in ftp://pets.example/v1',
        hint: 'use an https:// URL',
      }),
    );
  });

  it('lets the key go over plain http to IPv4 loopback written as IPv6, not to another host', () => {
    expect(() => checkKeyTarget(new URL('http://[::ffff:127.0.0.1]:4010/v1'))).not.toThrow();
    expect(() => checkKeyTarget(new URL('http://[::ffff:10.0.0.1]:4010/v1'))).toThrow(FlagError);
  });
});

describe('baseUrlWarnings', () => {
  it('warns about a URL without a path: the base URL usually ends in /v1', () => {
    expect(baseUrlWarnings(new URL('https://api.example.com'))).toEqual([
      "warning: --base-url https://api.example.com has no path; the service's base URL usually ends in /v1, as in https://api.example.com/v1",
    ]);
    expect(baseUrlWarnings(new URL('https://api.example.com:8443/'), '--messages-url')).toEqual([
      "warning: --messages-url https://api.example.com:8443 has no path; the service's base URL usually ends in /v1, as in https://api.example.com:8443/v1",
    ]);
  });

  it('warns about plain http to a host that is not loopback', () => {
    expect(baseUrlWarnings(new URL('http://api.example.com/v1'))).toEqual([
      'warning: --base-url uses plain http:// to a host that is not loopback; store will refuse to send the API key there',
    ]);
  });

  it('says nothing about a usual base URL, or plain http on loopback', () => {
    expect(baseUrlWarnings(new URL('https://api.example.com/v1'))).toEqual([]);
    expect(baseUrlWarnings(new URL('http://127.0.0.1:4010/v1'))).toEqual([]);
    expect(baseUrlWarnings(new URL('https://api.example.com/store/'))).toEqual([]);
  });
});

describe('checkProfileName', () => {
  it.each([['eu'], ['eu-west_2.test'], ['A'], ['9'], ['x'.repeat(64)]])('accepts %s', (name) => {
    expect(() => checkProfileName(name)).not.toThrow();
  });

  it.each([
    ['', '""'],
    ['x'.repeat(65), `"${'x'.repeat(65)}"`],
    ['-p', '"-p"'],
    ['.hidden', '".hidden"'],
    ['eu west', '"eu west"'],
    ['eu/west', '"eu/west"'],
    ['prod\u001b[2J', '"prod\\u001b[2J"'],
    ['prod\u009b', '"prod\\u009b"'],
    ['ünï', '"ünï"'],
  ])('refuses %j with exit 2', (name, quoted) => {
    const error = thrown(() => checkProfileName(name));
    expect(error).toBeInstanceOf(FlagError);
    expect((error as FlagError).message).toBe(
      `invalid profile name ${quoted}: ${PROFILE_NAME_RULE}`,
    );
  });
});
