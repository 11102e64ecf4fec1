// How many terminal cells text takes, and text cut or wrapped to a number of cells. A cell is
// a user-perceived character (grapheme): CJK and emoji take 2 cells, combining marks and
// format characters 0, everything else 1. Text is expected to be sanitised already (no
// control characters).
import { lazyPattern, PRINTABLE_ASCII } from '../lazy-pattern.js';

// East Asian Wide and Fullwidth code points (Unicode EastAsianWidth W/F, assigned ones, with
// the CJK planes whole), as [first, last] pairs in order.
// biome-ignore format: a table
const WIDE = [
  0x1100,0x115f,0x231a,0x231b,0x2329,0x232a,0x23e9,0x23ec,0x23f0,0x23f0,0x23f3,0x23f3,0x25fd,
  0x25fe,0x2614,0x2615,0x2648,0x2653,0x267f,0x267f,0x2693,0x2693,0x26a1,0x26a1,0x26aa,0x26ab,
  0x26bd,0x26be,0x26c4,0x26c5,0x26ce,0x26ce,0x26d4,0x26d4,0x26ea,0x26ea,0x26f2,0x26f3,0x26f5,
  0x26f5,0x26fa,0x26fa,0x26fd,0x26fd,0x2705,0x2705,0x270a,0x270b,0x2728,0x2728,0x274c,0x274c,
  0x274e,0x274e,0x2753,0x2755,0x2757,0x2757,0x2795,0x2797,0x27b0,0x27b0,0x27bf,0x27bf,0x2b1b,
  0x2b1c,0x2b50,0x2b50,0x2b55,0x2b55,0x2e80,0x303e,0x3041,0x3247,0x3250,0x4dbf,0x4e00,0xa4c6,
  0xa960,0xa97c,0xac00,0xd7a3,0xf900,0xfad9,0xfe10,0xfe19,0xfe30,0xfe6b,0xff01,0xff60,0xffe0,
  0xffe6,0x16fe0,0x1b2fb,0x1f004,0x1f004,0x1f0cf,0x1f0cf,0x1f18e,0x1f18e,0x1f191,0x1f19a,
  0x1f200,0x1f320,0x1f32d,0x1f335,0x1f337,0x1f37c,0x1f37e,0x1f393,0x1f3a0,0x1f3ca,0x1f3cf,
  0x1f3d3,0x1f3e0,0x1f3f0,0x1f3f4,0x1f3f4,0x1f3f8,0x1f43e,0x1f440,0x1f440,0x1f442,0x1f4fc,
  0x1f4ff,0x1f53d,0x1f54b,0x1f54e,0x1f550,0x1f567,0x1f57a,0x1f57a,0x1f595,0x1f596,0x1f5a4,
  0x1f5a4,0x1f5fb,0x1f64f,0x1f680,0x1f6c5,0x1f6cc,0x1f6cc,0x1f6d0,0x1f6d2,0x1f6d5,0x1f6df,
  0x1f6eb,0x1f6ec,0x1f6f4,0x1f6fc,0x1f7e0,0x1f7f0,0x1f90c,0x1f93a,0x1f93c,0x1f945,0x1f947,
  0x1f9ff,0x1fa70,0x1faf6,0x20000,0x3fffd,
];

function isWide(cp: number): boolean {
  if (cp < 0x1100) return false;
  let lo = 0;
  let hi = WIDE.length / 2 - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (cp < (WIDE[mid * 2] as number)) hi = mid - 1;
    else if (cp > (WIDE[mid * 2 + 1] as number)) lo = mid + 1;
    else return true;
  }
  return false;
}

// Marks join the character before them; format characters (ZWJ, LRM…) are invisible;
// Hangul medial and final jamo join the initial one.
const ZERO_WIDTH = lazyPattern(() => /^[\p{Mn}\p{Me}\p{Cf}\u1160-\u11ff\ud7b0-\ud7ff]/u);
const EMOJI_PRESENTATION = lazyPattern(() => /^\p{Emoji_Presentation}/u);
const EMOJI = lazyPattern(() => /^\p{Extended_Pictographic}|^[#*0-9]\ufe0f?\u20e3/u);
const REGIONAL_PAIR = /^[\u{1f1e6}-\u{1f1ff}]{2}/u;

// Code points that build a many-code-point emoji (joiner, variation selectors, keycap, flags,
// skin tones, tags): only text that holds one needs grapheme segmentation, which is slow.
const SEQUENCE =
  /[\u200d\ufe0e\ufe0f\u20e3\u{1f1e6}-\u{1f1ff}\u{1f3fb}-\u{1f3ff}\u{e0020}-\u{e007f}]/u;

let segmenter: Intl.Segmenter | undefined;

/**
 * The units text is measured and cut by: its graphemes when it holds an emoji sequence, else
 * its code points (a combining mark, 0 cells, then stays with the letter before it).
 */
function graphemes(text: string): Iterable<string> {
  if (!SEQUENCE.test(text)) return text;
  segmenter ??= new Intl.Segmenter('en', { granularity: 'grapheme' });
  const segments = segmenter.segment(text);
  return {
    *[Symbol.iterator]() {
      for (const { segment } of segments) yield segment;
    },
  };
}

/** As terminals count a code point (wcwidth): wide 2, marks and format characters 0. */
function codePointWidth(ch: string): number {
  const cp = ch.codePointAt(0) ?? 0;
  // The soft hyphen (U+00AD) takes a cell: glibc's wcwidth and terminals (xterm, tmux) draw it.
  if (cp < 0x300) return cp < 0x20 || (cp >= 0x7f && cp < 0xa0) ? 0 : 1;
  // A few combining marks sit inside the wide ranges (kana voicing marks U+3099–309A, which
  // decomposed Japanese is written with; ideographic tone marks): 0, as wcwidth says.
  if (isWide(cp)) return COMBINING().test(ch) ? 0 : 2;
  if (cp >= 0x1f000 && EMOJI_PRESENTATION().test(ch)) return 2;
  return ZERO_WIDTH().test(ch) ? 0 : 1;
}

const COMBINING = lazyPattern(() => /^[\p{Mn}\p{Me}]/u);

/**
 * Cells taken by one unit of `graphemes`. An emoji, however many code points make it, is one
 * glyph of 2 cells; otherwise each code point counts as a terminal counts it (so a
 * Devanagari conjunct takes a cell per consonant).
 */
function graphemeWidth(grapheme: string): number {
  if (grapheme.length === 1) return codePointWidth(grapheme);
  if (!grapheme.includes('\ufe0e')) {
    if (EMOJI_PRESENTATION().test(grapheme) || REGIONAL_PAIR.test(grapheme)) return 2;
    if (grapheme.includes('\ufe0f') && EMOJI().test(grapheme)) return 2;
  }
  let width = 0;
  for (const ch of grapheme) width += codePointWidth(ch);
  return width;
}

/** Terminal cells taken by text (sanitised: no control characters). */
export function textWidth(text: string): number {
  if (PRINTABLE_ASCII.test(text)) return text.length;
  let width = 0;
  for (const g of graphemes(text)) width += graphemeWidth(g);
  return width;
}

const ELLIPSIS = '…';

/** Text cut to at most `width` cells, ending in `…` when cut (spaces before it dropped);
 * never splits a grapheme. */
export function truncate(text: string, width: number, known = textWidth(text)): string {
  if (known <= width) return text;
  if (width <= 0) return '';
  const room = width - 1; // for the ellipsis
  if (PRINTABLE_ASCII.test(text)) return `${text.slice(0, room).trimEnd()}${ELLIPSIS}`;
  let used = 0;
  let cut = '';
  for (const g of graphemes(text)) {
    const w = graphemeWidth(g);
    if (used + w > room) break;
    used += w;
    cut += g;
  }
  return `${cut.trimEnd()}${ELLIPSIS}`;
}

/**
 * Text cut to at most `width` cells by taking out its middle, `…` in its place: for text whose
 * two ends tell rows apart, such as a URL (its host, and its port and path). Never splits a
 * grapheme; the end gets what the start cannot use.
 */
export function truncateMiddle(text: string, width: number, known = textWidth(text)): string {
  if (known <= width) return text;
  if (width <= 1) return truncate(text, width, known);
  const room = width - 1; // for the ellipsis
  const parts = PRINTABLE_ASCII.test(text) ? [...text] : [...graphemes(text)];
  let head = '';
  let used = 0;
  let next = 0;
  for (; next < parts.length; next += 1) {
    const w = graphemeWidth(parts[next] as string);
    if (used + w > room - Math.floor(room / 2)) break;
    used += w;
    head += parts[next];
  }
  let from = parts.length;
  while (from > next) {
    const w = graphemeWidth(parts[from - 1] as string);
    if (used + w > room) break;
    used += w;
    from -= 1;
  }
  // A mark (0 cells) whose letter was left out goes too: the units are code points there.
  while (from < parts.length && graphemeWidth(parts[from] as string) === 0) from += 1;
  return `${head}${ELLIPSIS}${parts.slice(from).join('')}`;
}

/**
 * Text wrapped to lines of at most `width` cells at spaces; a word longer than a line is
 * broken. Each line of the input is wrapped on its own, and its continuation lines keep its
 * indentation (help text lists stay aligned), but for a word that only fits without it.
 * Trailing spaces are dropped.
 */
export function wrapText(text: string, width: number): string {
  return text
    .split('\n')
    .map((line) => wrapLine(line, Math.max(width, 1)))
    .join('\n');
}

function wrapLine(line: string, width: number): string {
  if (textWidth(line) <= width) return line.trimEnd();
  const indent = /^ */.exec(line)?.[0] ?? '';
  // An indentation that leaves less than half the line is not kept for continuations.
  const hang = indent.length <= width / 2 ? indent : '';
  const lines: string[] = [];
  let current = indent;
  let used = indent.length;
  let empty = true; // no word on the current line yet
  const newLine = () => {
    lines.push(current);
    current = hang;
    used = hang.length;
    empty = true;
  };
  const add = (text: string, w: number) => {
    current += text;
    used += w;
    empty = false;
  };
  for (const word of line.slice(indent.length).split(/ +/)) {
    if (word === '') continue;
    const w = textWidth(word);
    if (!empty && used + 1 + w <= width) add(` ${word}`, 1 + w);
    else {
      if (!empty) newLine();
      // A word that fits a line only without its indentation goes unindented, not broken.
      if (used + w > width && w <= width) {
        current = '';
        used = 0;
      }
      if (used + w <= width) add(word, w);
      else {
        // Longer than a whole line: broken where the line ends.
        for (const g of graphemes(word)) {
          const gw = graphemeWidth(g);
          if (!empty && used + gw > width) newLine();
          add(g, gw);
        }
      }
    }
  }
  lines.push(current);
  return lines.join('\n');
}

// One SGR style around a whole line (the dim notice): wrapped inside it, each piece styled.
const STYLED_LINE = /^(\x1b\[[0-9;]*m)([^\x1b]*)(\x1b\[[0-9;]*m)$/;

/**
 * Each whole line of `text` laid out for a terminal `width` cells wide: wrapped at spaces, and
 * a word too long for a line cut in its middle with `…` (a path or URL keeps both ends) rather
 * than broken across two lines. A last line without its newline yet (a prompt) is left as it
 * is; so is a line with styles inside it.
 */
export function fitLines(text: string, width: number): string {
  if (!text.includes('\n') || width < 1) return text;
  const end = text.lastIndexOf('\n');
  const lines = text
    .slice(0, end)
    .split('\n')
    .map((line) => fitLine(line, width));
  return `${lines.join('\n')}\n${text.slice(end + 1)}`;
}

function fitLine(line: string, width: number): string {
  const styled = STYLED_LINE.exec(line);
  if (styled) {
    const [, open, inner, close] = styled as unknown as [string, string, string, string];
    return fitLine(inner, width)
      .split('\n')
      .map((piece) => `${open}${piece}${close}`)
      .join('\n');
  }
  if (line.includes('\x1b') || textWidth(line) <= width) return line;
  const indent = /^ */.exec(line)?.[0] ?? '';
  const room = Math.max(width - (indent.length <= width / 2 ? indent.length : 0), 1);
  const words = line
    .slice(indent.length)
    .split(/( +)/)
    .map((part) =>
      part.trim() !== '' && textWidth(part) > room ? truncateMiddle(part, room) : part,
    )
    .join('');
  return wrapText(`${indent}${words}`, width);
}
