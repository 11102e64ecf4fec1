// Whether a process runs, by its pid: signal 0 checks without sending anything.
const { readFileSync } = process.getBuiltinModule('node:fs');

/** True when the process exists, as another user's too (EPERM), and is not a zombie. */
export function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
  return !isZombie(pid);
}

/**
 * A process that has ended but that its parent has not reaped yet (state Z in /proc/PID/stat,
 * on Linux): signal 0 still finds it. Right after a kill -9 it is one for a while, and for good
 * in a container whose first process reaps nothing: a lock it held would never be taken over.
 */
function isZombie(pid: number): boolean {
  if (process.platform !== 'linux') return false;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // `PID (COMMAND) STATE …`: the command may hold spaces and parentheses.
    const state = stat.charAt(stat.lastIndexOf(')') + 2);
    return state === 'Z' || state === 'X';
  } catch {
    return false;
  }
}
