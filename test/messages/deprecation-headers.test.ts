// Deprecation (RFC 9745) and Sunset (RFC 8594) are read as strictly as Retry-After: only the
// forms the RFCs give count; anything else is as good as absent, never shown (#30, 9).
import { describe, expect, it } from 'vitest';
import { baseEnv, run } from '../helpers/cli.js';
import { api, KEY } from '../helpers/http.js';

const env = () => baseEnv({ STORE_API_KEY: KEY });
const WARNING = 'warning: the API marks GET /pets as deprecated';

describe('Deprecation and Sunset headers', () => {
  it.each([
    ['a Sunset of -1 (Date.parse read 2001-01-01)', { sunset: '-1' }],
    ['a Sunset of 15 KB', { sunset: `Thu, 05 Dec 2030 00:00:00 GMT ${'x'.repeat(15_000)}` }],
    ['a Sunset in words', { sunset: 'next year' }],
    ['a Sunset as an ISO date', { sunset: '2030-12-05' }],
    ['a Deprecation of true (a draft’s form)', { deprecation: 'true' }],
    ['a Deprecation without its @', { deprecation: '1767225600' }],
    ['a Deprecation that is no number', { deprecation: '@soon' }],
    ['both unreadable', { deprecation: 'yes', sunset: 'tomorrow' }],
  ])('ignores %s: no line at all', async (_what, headers) => {
    const scope = api().get('/v1/pets').reply(200, '[]', headers);
    const result = await run(['pets', 'list', '--json'], { env: env() });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({ code: 0, stdout: '[]\n', stderr: '', prompts: [] });
  });

  it.each([
    [
      'IMF-fixdate',
      { sunset: 'Thu, 05 Dec 2030 00:00:00 GMT' },
      '; it will be removed on 2030-12-05',
    ],
    [
      'RFC 850',
      { sunset: 'Thursday, 05-Dec-30 00:00:00 GMT' },
      '; it will be removed on 2030-12-05',
    ],
    ['asctime', { sunset: 'Thu Dec  5 00:00:00 2030' }, '; it will be removed on 2030-12-05'],
    ['a Deprecation date', { deprecation: '@1767225600' }, ''],
    [
      'a Deprecation date, and a Sunset that is none',
      { deprecation: '@1767225600', sunset: '-1' },
      '',
    ],
  ])('reads a Sunset or Deprecation in the RFC’s form (%s)', async (_what, headers, when) => {
    const scope = api().get('/v1/pets').reply(200, '[]', headers);
    const result = await run(['pets', 'list', '--json'], { env: env() });
    expect(scope.isDone()).toBe(true);
    expect(result).toEqual({ code: 0, stdout: '[]\n', stderr: `${WARNING}${when}\n`, prompts: [] });
  });
});
