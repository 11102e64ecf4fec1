// "Did you mean", in store's one form, for commands, flags, help topics, JSON fields and tools.
import { quote } from '../../config/quote.js';

/** Optimal string alignment distance: insertions, deletions, substitutions, transpositions. */
function distance(a: string, b: string): number {
  const width = b.length + 1;
  const d = new Array<number>((a.length + 1) * width).fill(0);
  const at = (i: number, j: number) => d[i * width + j] ?? 0;
  for (let i = 0; i <= a.length; i++) d[i * width] = i;
  for (let j = 0; j <= b.length; j++) d[j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let value = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        value = Math.min(value, at(i - 2, j - 2) + 1);
      }
      d[i * width + j] = value;
    }
  }
  return at(a.length, b.length);
}

/** The candidate closest to `word`: a prefix of three letters or more, or a typo away. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const typed = word.toLowerCase();
  if (typed.length >= 3) {
    const prefixed = candidates.find((candidate) => candidate.startsWith(typed));
    if (prefixed) return prefixed;
  }
  let best: { candidate: string; score: number } | undefined;
  for (const candidate of candidates) {
    const score = distance(typed, candidate);
    // Commander's rule: at most 3 edits, and most of the word right.
    if (score > 3 || (candidate.length - score) / candidate.length <= 0.4) continue;
    if (!best || score < best.score) best = { candidate, score };
  }
  return best?.candidate;
}

/** ` (did you mean "x"?)`, store's one form of it; empty without a close candidate. Flags
 * are compared without their `--`, as commander does (`--key` is not near `--help`). */
export function didYouMean(typed: string, candidates: readonly string[]): string {
  const bare = (word: string) => word.replace(/^--/, '');
  const flags = typed.startsWith('--');
  const meant = flags
    ? candidates.find((flag) => bare(flag) === closest(bare(typed), candidates.map(bare)))
    : closest(typed, candidates);
  return meant === undefined ? '' : ` (did you mean ${quote(meant)}?)`;
}
