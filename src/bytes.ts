// Bytes that arrive in pieces, gathered into one buffer that grows by doubling: memory follows
// the bytes, not the number of pieces (a body sent one byte per chunk would otherwise keep a
// Buffer, and the network read it is a view of, per byte).
export class GrowingBytes {
  // Empty until the first piece, which it then fits exactly: most bodies come in one.
  private buffer = Buffer.alloc(0);
  private length = 0;

  get size(): number {
    return this.length;
  }

  /** Copies `chunk` in. */
  add(chunk: Uint8Array): void {
    const needed = this.length + chunk.length;
    if (needed > this.buffer.length) {
      const grown = Buffer.allocUnsafe(Math.max(needed, this.buffer.length * 2));
      this.buffer.copy(grown, 0, 0, this.length);
      this.buffer = grown;
    }
    this.buffer.set(chunk, this.length);
    this.length = needed;
  }

  /** The bytes so far (a view of them, not a copy). */
  bytes(): Buffer {
    return this.buffer.subarray(0, this.length);
  }
}
