// The one transient line on a terminal's stderr (bulk-add progress, a spinner while waiting).
// It is erased before anything else is written to the terminal and drawn again after, so it
// never mixes into output lines; it is drawn only when the cursor is at the start of a line.
import { sanitize } from './sanitize.js';
import { truncate } from './width.js';

const ERASE = '\r\u001b[K';
const SPINNER = '⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏';
const SPIN_MS = 80;
const WAIT_BEFORE_SPINNER_MS = 1000;

export interface StatusLine {
  /** Replaces the text (redrawn at once). */
  update(text: string): void;
  /** Removes the line; idempotent. */
  done(): void;
}

export class StatusBoard {
  /** Active lines, oldest first: the oldest is shown, later ones wait for it to end. */
  private readonly lines: { text: string }[] = [];
  private drawn = false;
  private atLineStart = true;
  private held = false;

  constructor(
    /** False when stderr is not a terminal: nothing is ever drawn. */
    private readonly enabled: boolean,
    /** Writes to stderr as it is, bypassing the board. */
    private readonly write: (text: string) => void,
    /** Cells available on stderr's terminal. */
    private readonly width: () => number,
  ) {}

  show(text: string): StatusLine {
    const line = { text };
    if (!this.enabled) return { update: () => {}, done: () => {} };
    this.lines.push(line);
    this.draw();
    return {
      update: (next) => {
        line.text = next;
        if (this.lines[0] === line) this.draw();
      },
      done: () => {
        const at = this.lines.indexOf(line);
        if (at === -1) return;
        this.lines.splice(at, 1);
        if (at === 0) this.draw();
      },
    };
  }

  /** A spinner with `label`, shown only once `delayMs` have passed; returns its stop. */
  waiting(label: string, delayMs = WAIT_BEFORE_SPINNER_MS): () => void {
    if (!this.enabled) return () => {};
    let line: StatusLine | undefined;
    let frame = 0;
    let spin: ReturnType<typeof setInterval> | undefined;
    const text = () => `${SPINNER[frame % SPINNER.length]} ${label}`;
    const start = setTimeout(() => {
      line = this.show(text());
      spin = setInterval(() => {
        frame += 1;
        line?.update(text());
      }, SPIN_MS);
      spin.unref?.();
    }, delayMs);
    // A spinner never keeps the process alive.
    start.unref?.();
    return () => {
      clearTimeout(start);
      clearInterval(spin);
      line?.done();
      line = undefined;
    };
  }

  /** Called before a write that reaches the terminal. */
  beforeWrite(): void {
    if (this.drawn) {
      this.write(ERASE);
      this.drawn = false;
    }
  }

  /** Called after a write that reached the terminal. */
  afterWrite(text: string | Uint8Array): void {
    if (text.length > 0) {
      const last = typeof text === 'string' ? text.charCodeAt(text.length - 1) : text.at(-1);
      this.atLineStart = last === 0x0a;
    }
    this.draw();
  }

  /** Erased and not drawn until `release` (a prompt owns the line). */
  hold(): void {
    this.beforeWrite();
    this.held = true;
  }

  release(): void {
    this.held = false;
    this.atLineStart = true;
    this.draw();
  }

  /** Erases the line and forgets every active one (the program is ending). */
  clear(): void {
    this.lines.length = 0;
    this.beforeWrite();
  }

  private draw(): void {
    const line = this.lines[0];
    if (!line) {
      this.beforeWrite();
      return;
    }
    if (this.held || !this.atLineStart) return;
    // One cell short of the width: writing the last cell makes some terminals wrap.
    const text = truncate(sanitize(line.text), Math.max(this.width() - 1, 1));
    this.write(`${ERASE}${text}`);
    this.drawn = true;
  }
}
