// Checks for text laid out to a width: what a reader at that width would see cut or wrapped.
import { textWidth } from '../../src/render/width.js';

/** A line that cannot be broken: one word, or one quoted part of a shell command. */
const UNBREAKABLE = /^(?:\$ )?(?:"[^"]*"|'[^']*'|[^\s"'])+(?: \\)?$/;

/** The lines wider than `width` that could have been broken at a space. */
export function tooWide(text: string, width: number): string[] {
  return text
    .split('\n')
    .filter((line) => textWidth(line) > width && !UNBREAKABLE.test(line.trim()));
}

/** The words of a text, whatever its line breaks (shell continuations included): two
 * layouts of the same text give the same words, and a word cut in two shows. */
export function words(text: string): string[] {
  return text.replace(/ \\\n/g, ' ').split(/\s+/).filter(Boolean);
}
