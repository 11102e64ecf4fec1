// The response body cap (32 MiB, src/api/transport.ts) bounds memory as well as bytes, however
// the body is chunked: one Buffer kept per chunk made 8 MiB sent in 1-byte chunks take 1.3 GB.
import { once } from 'node:events';
import { type AddressInfo, createServer, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { afterThisTest } from '../helpers/cleanup.js';
import { processEnv, resourceProbe, store } from '../helpers/process.js';

const MiB = 1024 * 1024;

/** A server that answers every request with `size` bytes of JSON (`[`, spaces, `]`) in
 * chunked encoding, one byte per chunk, written in large batches of frames. */
async function oneByteChunks(size: number): Promise<string> {
  const frame = (byte: string) => `1\r\n${byte}\r\n`;
  const batch = Buffer.from(frame(' ').repeat(MiB / 8));
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.once('data', async () => {
      socket.write(
        'HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n',
      );
      socket.write(frame('['));
      let left = size - 2;
      while (left > 0 && !socket.destroyed) {
        const frames = Math.min(left, MiB / 8);
        left -= frames;
        if (!socket.write(batch.subarray(0, frames * 6))) await once(socket, 'drain');
      }
      socket.end(`${frame(']')}0\r\n\r\n`);
    });
    socket.on('error', () => {});
  });
  afterThisTest(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise((resolve) => server.close(resolve));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
}

describe('a response body sent one byte per chunk', () => {
  it('of 8 MiB is read whole in bounded memory (peak under 300 MB)', async () => {
    const url = await oneByteChunks(8 * MiB);
    const peak = resourceProbe();
    const result = await store(['pets', 'list', '--json'], {
      env: processEnv({ STORE_BASE_URL: url, STORE_API_KEY: 'k-1234' }),
      nodeArgs: ['--import', peak.url],
    });
    expect(result).toEqual({ code: 0, signal: null, stdout: '[]\n', stderr: '' });
    expect(peak.peakMiB()).toBeLessThan(300);
  }, 60_000);
});
