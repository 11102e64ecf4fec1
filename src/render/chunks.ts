// Output of many lines in large pieces: one write per line costs a system call each.
import type { IOStreams } from '../io.js';

const FLUSH_AT = 65_536;

export interface ChunkedOut {
  add(text: string): void;
  /** Writes what is left. */
  end(): void;
}

export function chunkedOut(io: IOStreams): ChunkedOut {
  let chunk = '';
  return {
    add: (text) => {
      chunk += text;
      if (chunk.length >= FLUSH_AT) {
        io.out(chunk);
        chunk = '';
      }
    },
    end: () => {
      if (chunk !== '') io.out(chunk);
      chunk = '';
    },
  };
}
