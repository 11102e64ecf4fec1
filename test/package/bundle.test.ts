// dist/ is fully minified (scripts/bundle.js): class and function names are not kept, so
// nothing may read them at run time. Errors spell their names out.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import * as errors from '../../src/errors.js';
import { BIN } from '../helpers/process.js';

describe('the error classes, minified', () => {
  it('each names itself, not by its (minified) class name', () => {
    type ErrorClass = new (...args: unknown[]) => Error;
    const classes = (Object.entries(errors) as [string, unknown][]).filter(
      (entry): entry is [string, ErrorClass] =>
        typeof entry[1] === 'function' && entry[1].prototype instanceof Error,
    );
    expect(classes.map(([name]) => name).sort()).toEqual([
      'ApiError',
      'AuthError',
      'CancelledError',
      'CliError',
      'ConfigError',
      'FlagError',
      'NetworkError',
      'ResponseError',
      'SilentExit',
    ]);
    for (const [name, ErrorClass] of classes) {
      // The source declares `name = '…'` itself: an anonymous subclass keeps its parent's.
      const made = new ErrorClass('m', 1, 'c');
      expect(made.name).toBe(name);
      expect(Object.getOwnPropertyDescriptor(made, 'name')?.value).toBe(name);
    }
    // In dist/, where class names are minified away, the names are there as text.
    const bundle = readFileSync(join(BIN, '../../dist/store.cjs'), 'utf8');
    expect(classes.filter(([name]) => !bundle.includes(`"${name}"`)).map(([name]) => name)).toEqual(
      [],
    );
  });
});
