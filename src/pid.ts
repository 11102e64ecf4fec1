// Whether a process runs, by its pid: signal 0 checks without sending anything.

/** True when the process exists, as another user's too (EPERM). */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
