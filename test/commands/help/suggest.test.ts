// "Did you mean" (src/commands/help/suggest.ts): which word a typo is taken for, and which not.
import { describe, expect, it } from 'vitest';
import { closest } from '../../../src/commands/help/suggest.js';

const WORDS = ['environment', 'exit-codes', 'formatting', 'pets', 'messages', 'orders', 'auth'];

describe('closest', () => {
  it.each<[string, string | undefined, string]>([
    ['env', 'environment', 'three letters are enough for a prefix'],
    ['en', undefined, 'two are not'],
    ['PETS', 'pets', 'case does not count'],
    ['epst', 'pets', 'two letters swapped are one edit (two swaps here)'],
    ['pxtx', 'pets', 'two substitutions in four letters: half right is enough'],
    ['messagesxyz', 'messages', 'three edits away'],
    ['messagesxyzw', undefined, 'four are too many'],
    ['path', 'pets', 'a tie (pets and auth, two edits each): the first candidate'],
    ['xyz', undefined, 'nothing close'],
  ])('%s → %s (%s)', (word, expected) => {
    expect(closest(word, WORDS)).toBe(expected);
  });
});
