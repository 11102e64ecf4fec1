// A tool's result: the --json text as it is, the same data structured with every number a
// double cannot hold as a string; a failure as the CLI reports it, with the exit code.
import { describe, expect, it } from 'vitest';
import { ApiError, FlagError } from '../../src/errors.js';
import { failure, success } from '../../src/mcp/result.js';

describe('a tool result', () => {
  it('keeps every digit: numbers a double cannot hold are strings when structured', () => {
    const output = '[{"id":9223372036854775807,"price":0.10000000000000000001,"n":2}]\n';
    expect(success(output, 'staging', false, [])).toEqual({
      content: [{ type: 'text', text: output.trimEnd() }],
      structuredContent: {
        profile: 'staging',
        data: [{ id: '9223372036854775807', price: '0.10000000000000000001', n: 2 }],
      },
    });
  });

  it('says which profile a write went to, and passes on the warnings', () => {
    const result = success('{"id":1}', 'sandbox', true, ['warning: deprecated']);
    expect(result.content).toEqual([
      { type: 'text', text: '{"id":1}' },
      { type: 'text', text: 'written to profile sandbox' },
      { type: 'text', text: 'warning: deprecated' },
    ]);
  });

  it('is a tool error with the service’s code, message, status and the exit code', () => {
    const result = failure(new ApiError('no pet with id 7', 'pet_not_found', 404), '', 'sandbox');
    expect(result).toEqual({
      isError: true,
      content: [
        {
          type: 'text',
          text: 'error: no pet with id 7 (pet_not_found, HTTP 404)\nexit code 5: not found (HTTP 404)',
        },
      ],
      structuredContent: {
        profile: 'sandbox',
        error: {
          code: 'pet_not_found',
          message: 'no pet with id 7',
          status: 404,
          exitCode: 5,
          meaning: 'not found (HTTP 404)',
        },
      },
    });
    const usage = failure(new FlagError('--limit must be an integer'), '', undefined);
    expect(usage.structuredContent).toMatchObject({ error: { code: 'usage_error', exitCode: 2 } });
  });

  it('is a tool error for a bug too, never a crash of the server', () => {
    const result = failure(new TypeError('x is not a function'), '', 'sandbox');
    expect(result).toMatchObject({
      isError: true,
      structuredContent: {
        error: {
          code: 'internal_error',
          message: 'internal error: x is not a function',
          exitCode: 1,
        },
      },
    });
  });
});
