// Output of many lines in large pieces (one write per line costs a system call each), each
// written when stdout has room for it: a slow reader holds the output in a buffer, not whole
// in memory.
import type { IOStreams } from '../io.js';

const FLUSH_AT = 65_536;

export interface ChunkedOut {
  /**
   * Adds `text`. Once a piece was written, returns what to await before adding more: it
   * resolves true when stdout has room again, false when stdout failed (the rest is dropped:
   * the caller may stop making it).
   */
  add(text: string): Promise<boolean> | undefined;
  /** Writes what is left. */
  end(): void;
}

export function chunkedOut(io: IOStreams): ChunkedOut {
  let chunk = '';
  return {
    add: (text) => {
      chunk += text;
      if (chunk.length < FLUSH_AT) return undefined;
      io.out(chunk);
      chunk = '';
      return io.outputRoom().then(() => io.outputError === undefined);
    },
    end: () => {
      if (chunk !== '') io.out(chunk);
      chunk = '';
    },
  };
}
