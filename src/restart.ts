// Some V8 settings take effect only when the process starts (the young generation's size:
// see src/bulk/import.ts). A command that needs one has this same invocation start over in
// its place, with the flags added, by execve: the same process id, the same standard streams
// and nothing of this process left behind (no parent waiting, no signals to relay).
//
// Used by cli() only (a real process); the tests that run commands in-process get no restart.

/** The parts of `process` a restart reads and uses. */
export interface RestartableProcess {
  platform: NodeJS.Platform;
  execPath: string;
  execArgv: readonly string[];
  argv: readonly string[];
  env: NodeJS.ProcessEnv;
  execve?: (file: string, args: readonly string[], env: NodeJS.ProcessEnv) => never;
}

/** Whether the Node flags given at start-up (command line and NODE_OPTIONS) include `flag`
 * (by name: `--max-semi-space-size=4` counts for `--max-semi-space-size=1`). */
function startedWith(proc: RestartableProcess, flag: string): boolean {
  const name = flag.split('=')[0];
  const given = [...proc.execArgv, ...(proc.env.NODE_OPTIONS ?? '').split(/\s+/)];
  return given.some((arg) => arg.split('=')[0] === name);
}

/**
 * Starts this invocation again in this process's place with `flags` given to Node; returns
 * only when it does not: true when the process already started with them (it is the restarted
 * one, or the user gave their own values), false when it cannot restart: Windows (execve
 * exists there but throws), a single executable (it takes no Node flags on its command line),
 * the permission model without --allow-child-process, a Node binary no longer there.
 */
export function restartWithV8Flags(
  flags: readonly string[],
  proc: RestartableProcess,
  isSingleExecutable: boolean,
): boolean {
  if (flags.every((flag) => startedWith(proc, flag))) return true;
  if (proc.platform === 'win32' || typeof proc.execve !== 'function' || isSingleExecutable) {
    return false;
  }
  const missing = flags.filter((flag) => !startedWith(proc, flag));
  try {
    // A binary that is gone would make execve abort the process rather than throw.
    const { accessSync, constants } = process.getBuiltinModule('node:fs');
    accessSync(proc.execPath, constants.X_OK);
    // First: read as options whatever follows (`node -e …` takes the rest as its arguments).
    return proc.execve(
      proc.execPath,
      [proc.execPath, ...missing, ...proc.execArgv, ...proc.argv.slice(1)],
      proc.env,
    );
  } catch {
    // Refused (the permission model): the command runs on as it is.
    return false;
  }
}
