// Whether a process runs, as the locks judge their holders.
import { spawn } from 'node:child_process';
import { describe, expect, it, vi } from 'vitest';
import { isRunning } from '../src/pid.js';

describe('isRunning', () => {
  it('is true for this process, false for one that is gone', async () => {
    expect(isRunning(process.pid)).toBe(true);
    const child = spawn(process.execPath, ['-e', '']);
    await new Promise((resolve) => child.on('exit', resolve));
    expect(isRunning(child.pid as number)).toBe(false);
  });

  it.runIf(process.platform === 'linux')(
    'is false for a zombie (ended, not reaped by its parent): signal 0 still finds it',
    async () => {
      // The background `sleep` ends once its shell has become `sleep 5` (a shell still running
      // would reap it), which never reaps it.
      const parent = spawn('sh', ['-c', 'sleep 0.3 & echo $!; exec sleep 5']);
      const pid = Number(
        await new Promise<string>((resolve) => parent.stdout.once('data', (b) => resolve(`${b}`))),
      );
      try {
        await vi.waitFor(
          () => {
            process.kill(pid, 0); // there, as far as signal 0 can tell
            expect(isRunning(pid)).toBe(false);
          },
          { timeout: 4000 },
        );
      } finally {
        parent.kill();
      }
    },
  );
});
