import { describe, expect, it } from 'vitest';
import { lazyPattern } from '../../src/lazy-pattern.js';

describe('lazyPattern', () => {
  it('makes its expression at the first call, once', () => {
    let made = 0;
    const pattern = lazyPattern(() => {
      made += 1;
      return /^\p{Lu}/u;
    });
    expect(made).toBe(0);
    expect(pattern().test('Émile')).toBe(true);
    expect(pattern().test('émile')).toBe(false);
    expect(pattern()).toBe(pattern());
    expect(made).toBe(1);
  });
});
