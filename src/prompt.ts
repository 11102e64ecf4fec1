// The prompts on a terminal: a hidden one for secrets (the API key), read key by key in raw
// mode, and a visible one with readline's line editing. Loaded only when a command asks.
const { createInterface } = process.getBuiltinModule('node:readline');

import type { Readable, Writable } from 'node:stream';
import { CancelledError } from './errors.js';
import type { TTYReadable } from './terminal.js';

const ESC = '\u001b';

/**
 * What is typed at a hidden prompt, key by key: Enter (or Ctrl-D) ends it, Ctrl-C cancels,
 * Backspace removes the last character, and escape sequences are dropped, so they never become
 * part of the answer: arrow and function keys (ESC [ … final byte, ESC O x, the Linux console's
 * F1–F5 ESC [ [ x), Alt with a key (ESC x, sent together: Option+←/→ on a Mac is ESC b / ESC
 * f), strings such as OSC (ESC ] … BEL or ESC \), and a bare ESC (the Escape key: the next key
 * comes later, in a chunk of its own). A sequence may arrive split over several chunks; a
 * control character inside one (Enter, Ctrl-C after a stray Alt-[) ends it and acts as itself.
 */
export class HiddenInput {
  value = '';
  private escape: 'none' | 'esc' | 'csi' | 'csi-first' | 'ss3' | 'linux-fn' | 'string' = 'none';

  /** Takes a chunk; says whether the answer is complete, cancelled, or not yet. */
  feed(chunk: string): 'more' | 'done' | 'cancel' {
    // An ESC left from the chunk before was the Escape key, not the start of an Alt-key.
    let escInChunk = false;
    for (const ch of chunk) {
      if (this.escape !== 'none' && this.escape !== 'esc' && ch < ' ') this.escape = 'none';
      switch (this.escape) {
        case 'esc':
          // A CSI may come split over chunks; SS3 and strings are taken only with their ESC:
          // after the Escape key, O (as P, X, ], ^, _) is a key like any other.
          if (ch === '[' || (ch === 'O' && escInChunk)) {
            this.escape = ch === '[' ? 'csi-first' : 'ss3';
            continue;
          }
          // OSC, DCS, SOS, PM, APC, sent together with their ESC: a string until BEL or
          // ESC \ (both end it above). After the Escape key, `P` is a key like any other.
          if (escInChunk && ']PX^_'.includes(ch)) {
            this.escape = 'string';
            continue;
          }
          this.escape = 'none';
          // Alt with a key: ESC and the key were sent together.
          if (escInChunk && ch >= ' ' && ch !== '\u007f') continue;
          // A bare ESC is dropped; what follows it is an ordinary key.
          break;
        case 'string':
          continue;
        case 'csi-first':
          // The Linux console's F1–F5: ESC [ [ A … E, one more byte after the second [.
          if (ch === '[') {
            this.escape = 'linux-fn';
            continue;
          }
          this.escape = 'csi';
          if (ch >= '@' && ch <= '~') this.escape = 'none';
          continue;
        case 'csi':
          // Parameter and intermediate bytes until the final byte (0x40–0x7e).
          if (ch >= '@' && ch <= '~') this.escape = 'none';
          continue;
        case 'ss3':
        case 'linux-fn':
          this.escape = 'none';
          continue;
      }
      if (ch === ESC) {
        this.escape = 'esc';
        escInChunk = true;
      } else if (ch === '\r' || ch === '\n' || ch === '\u0004') return 'done';
      else if (ch === '\u0003') return 'cancel';
      // Ctrl-U starts again, as in a shell.
      else if (ch === '\u0015') this.value = '';
      else if (ch === '\u007f' || ch === '\b') this.value = [...this.value].slice(0, -1).join('');
      else if (ch >= ' ') this.value += ch;
    }
    // A terminal sends an SS3 key or a string whole: one left open at the end of a chunk was
    // Alt+O or Alt+] typed, and the keys after it are keys.
    if (this.escape === 'ss3' || this.escape === 'string') this.escape = 'none';
    return 'more';
  }
}

/** Reads a line in raw mode so the key is never echoed; Ctrl-C cancels. */
export function promptHidden(
  stdin: TTYReadable,
  stderr: Writable,
  question: string,
  signal?: AbortSignal,
): Promise<string> {
  // Echo off before the question shows: a key typed or pasted the moment it appears must not
  // be echoed by the terminal.
  stdin.setRawMode?.(true);
  stderr.write(question);
  return new Promise((resolve, reject) => {
    const input = new HiddenInput();
    const finish = (error: Error | null) => {
      stdin.setRawMode?.(false);
      stdin.off('data', onData);
      signal?.removeEventListener('abort', onAbort);
      stdin.pause();
      stderr.write('\n');
      if (error) reject(error);
      else resolve(input.value);
    };
    const onAbort = () => finish(new CancelledError());
    const onData = (chunk: Buffer | string) => {
      const state = input.feed(chunk.toString());
      if (state === 'done') finish(null);
      else if (state === 'cancel') finish(new CancelledError());
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    stdin.on('data', onData);
    stdin.resume();
  });
}

/** Reads one line with readline's editing (echoed); Ctrl-C, Ctrl-D or an abort cancel. */
export function promptLine(
  stdin: Readable,
  stderr: Writable,
  question: string,
  signal?: AbortSignal,
): Promise<string> {
  const rl = createInterface({ input: stdin, output: stderr, terminal: true });
  return new Promise((resolve, reject) => {
    let done = false;
    const finish = (error: Error | null, answer = '') => {
      if (done) return;
      done = true;
      signal?.removeEventListener('abort', onAbort);
      // Cancelled (Ctrl-C, Ctrl-D at an empty line, a signal): the question's line is ended,
      // so that the shell's prompt does not start after it. An answer's Enter ended it.
      if (error) stderr.write('\n');
      rl.close();
      stdin.pause();
      if (error) reject(error);
      else resolve(answer);
    };
    const onAbort = () => finish(new CancelledError());
    // In raw mode Ctrl-C reaches readline, not the process: it cancels the prompt instead.
    rl.on('SIGINT', () => finish(new CancelledError()));
    rl.on('close', () => finish(new CancelledError()));
    signal?.addEventListener('abort', onAbort, { once: true });
    rl.question(question, (answer) => finish(null, answer));
  });
}
