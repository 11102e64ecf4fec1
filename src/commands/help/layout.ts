// Help text that fits the terminal: paragraphs wrapped at word boundaries, lists of terms
// with their meanings (side by side when the terms are short, else each term on its own line
// with its meaning indented below), and examples broken into shell continuation lines so they
// still work when pasted. Everything here takes the width in terminal cells.
import type { Command, Help } from 'commander';
import { textWidth, wrapText } from '../../render/width.js';

const INDENT = '  ';
/** Where a meaning starts under its term in the stacked layout. */
const MEANING_INDENT = '      ';
/** Narrower than this, a meaning beside its term is too cramped to read: it goes below. */
const MIN_MEANING_WIDTH = 24;

/** A paragraph (no line breaks of its own) wrapped to the width, optionally indented. */
export function paragraph(text: string, width: number, indent = ''): string {
  return wrapText(`${indent}${text}`, width);
}

/** A line wrapped at its spaces, the lines after the first indented by four. */
function hanging(line: string, width: number): string {
  if (textWidth(line) <= width) return line;
  const [first = '', ...rest] = wrapText(line, width).split('\n');
  const more = rest.join(' ');
  return more === '' ? first : `${first}\n${wrapText(`    ${more}`, width)}`;
}

/** Terms and their meanings: two columns when the terms are short enough (unless `stacked`),
 * else each term on its own line and its meaning indented below. */
export function definitions(
  rows: readonly (readonly [string, string])[],
  width: number,
  stacked = false,
): string {
  const termWidth = Math.max(...rows.map(([term]) => textWidth(term)));
  const room = width - INDENT.length - termWidth - 2;
  if (!stacked && room >= MIN_MEANING_WIDTH && termWidth <= width / 3) {
    const hang = ' '.repeat(INDENT.length + termWidth + 2);
    return rows
      .map(([term, meaning]) => {
        const pad = ' '.repeat(termWidth - textWidth(term) + 2);
        const lines = wrapText(meaning, room).split('\n');
        return [`${INDENT}${term}${pad}${lines[0]}`, ...lines.slice(1).map((l) => hang + l)].join(
          '\n',
        );
      })
      .join('\n');
  }
  return rows
    .map(([term, meaning]) =>
      [wrapText(`${INDENT}${term}`, width), wrapText(`${MEANING_INDENT}${meaning}`, width)].join(
        '\n',
      ),
    )
    .join('\n');
}

/** Splits a shell command at the spaces outside quotes: the places a line may be broken. */
function shellWords(command: string): string[] {
  const words: string[] = [];
  let current = '';
  let quote: string | undefined;
  for (const ch of command) {
    if (quote) {
      if (ch === quote) quote = undefined;
    } else if (ch === "'" || ch === '"') {
      quote = ch;
    } else if (ch === ' ') {
      if (current !== '') words.push(current);
      current = '';
      continue;
    }
    current += ch;
  }
  if (current !== '') words.push(current);
  return words;
}

/**
 * One example as `  $ command`, broken with ` \` continuations (indented further) where it is
 * wider than the width, so the lines still paste as one command. A quoted part is never
 * broken: a word wider than a line stays whole.
 */
export function exampleLines(command: string, width: number): string {
  const words = shellWords(command);
  const lines: string[] = [];
  let line = `${INDENT}$ ${words[0] ?? ''}`;
  words.slice(1).forEach((word, i) => {
    const candidate = `${line} ${word}`;
    // A line that goes on keeps room for its ` \`; the last one does not need it.
    const last = i === words.length - 2;
    if (textWidth(candidate) + (last ? 0 : 2) <= width) {
      line = candidate;
      return;
    }
    lines.push(`${line} \\`);
    line = `${INDENT}    ${word}`;
  });
  lines.push(line);
  return lines.join('\n');
}

/** `Examples:` and each example, fitted to the width. */
export function examplesText(commands: readonly string[], width: number): string {
  return `Examples:\n${commands.map((command) => exampleLines(command, width)).join('\n')}`;
}

/** The width commander lays help out at (set from the terminal by the program). */
export function helpWidth(command: Command, error = false): number {
  const output = command.configureOutput();
  const width = error ? output.getErrHelpWidth?.() : output.getOutHelpWidth?.();
  return width ?? 80;
}

/**
 * commander's own layout, made to fit narrow terminals: meanings are wrapped from a smaller
 * width on, and an option or command whose meaning would be too cramped beside it gets the
 * meaning on the lines below, indented.
 */
export const HELP_LAYOUT: Partial<Help> = {
  // Text is wrapped at any width: below this, commander leaves a line whole for the terminal
  // to break mid-word (a meaning too cramped beside its term goes below it: formatItem).
  minWidthToWrap: 1,
  // The usage line is not wrapped by commander: its continuation is indented under it.
  formatHelp(this: Help, command, helper) {
    const text: string = Object.getPrototypeOf(this).formatHelp.call(this, command, helper);
    const end = text.indexOf('\n');
    const usage = end === -1 ? text : text.slice(0, end);
    return hanging(usage, this.helpWidth ?? 80) + text.slice(usage.length);
  },
  formatItem(this: Help, term, termWidth, description, helper) {
    const width = this.helpWidth ?? 80;
    const room = width - termWidth - 2 - INDENT.length;
    if (!description || room >= MIN_MEANING_WIDTH) {
      return Object.getPrototypeOf(this).formatItem.call(
        this,
        term,
        termWidth,
        description,
        helper,
      );
    }
    return `${wrapText(`${INDENT}${term}`, width)}\n${wrapText(`${MEANING_INDENT}${description}`, width)}`;
  },
};
