// Where config.json lives. Apart from file.ts (which loads zod) so that the completion of
// profile names, run on every TAB, stays cheap.
// The module object, not its function: a test stands in for the user database. Asked when
// needed: HOME usually is, and node:os is then not loaded at all.
const os = () => process.getBuiltinModule('node:os');
const { dirname, isAbsolute, join, win32 } = process.getBuiltinModule('node:path');

import type { Env } from '../env.js';
import { ConfigError } from '../errors.js';
import { makeFolders } from './safe-fs.js';

/**
 * STORE_CONFIG_DIR, else the platform's config folder: `$XDG_CONFIG_HOME/store` or
 * `~/.config/store` on Linux and macOS (as gh), `%APPDATA%/store/Config` on Windows. Never a
 * folder relative to the current one, which would save the key in whatever folder store runs
 * from: a relative XDG_CONFIG_HOME is ignored (as the XDG specification says), and a home
 * folder that cannot be told is a ConfigError.
 */
export function configDir(env: Env, platform: NodeJS.Platform = process.platform): string {
  const absolute = platform === 'win32' ? win32.isAbsolute : isAbsolute;
  const named = env.STORE_CONFIG_DIR;
  if (named) {
    if (absolute(named)) return named;
    // Set on purpose, it is not ignored as XDG_CONFIG_HOME is: refused, naming it.
    throw new ConfigError(
      `STORE_CONFIG_DIR must be a full path (got ${JSON.stringify(named)}): relative, store would keep its config and keys in whatever folder it runs from`,
    );
  }
  // The home folder only where it is needed: an absolute XDG_CONFIG_HOME or APPDATA does
  // without one (a container's user with neither HOME nor a home of its own).
  if (platform === 'win32') {
    const appData = env.APPDATA;
    const roaming =
      appData && absolute(appData) ? appData : join(homeDir(env), 'AppData', 'Roaming');
    return join(roaming, 'store', 'Config');
  }
  const xdg = env.XDG_CONFIG_HOME;
  const dir = join(xdg && absolute(xdg) ? xdg : join(homeDir(env), '.config'), 'store');
  return platform === 'darwin' ? movedFromLibrary(env, dir) : dir;
}

/**
 * An older store kept its config on macOS in ~/Library/Preferences/store: moved once to
 * `dir` when that is not there yet, so that profiles and keys follow. Where the move fails
 * (another volume, no permission) the old folder stays in use: nothing is left behind.
 */
function movedFromLibrary(env: Env, dir: string): string {
  const fs = process.getBuiltinModule('node:fs');
  if (fs.existsSync(dir) || !env.HOME || !isAbsolute(env.HOME)) return dir;
  const old = join(env.HOME, 'Library', 'Preferences', 'store');
  if (!fs.existsSync(old)) return dir;
  try {
    makeFolders(dirname(dir), 0o700);
    fs.renameSync(old, dir);
  } catch {
    // Moved meanwhile by another store, or not movable: whichever folder holds the config.
    return fs.existsSync(dir) ? dir : old;
  }
  return dir;
}

/** HOME when it is a full path, else the user's home in the system's user database. */
function homeDir(env: Env): string {
  if (env.HOME && isAbsolute(env.HOME)) return env.HOME;
  let home = '';
  try {
    home = os().userInfo().homedir;
  } catch {
    // A uid with no entry in the user database (a container's --user): no home to be found.
  }
  if (home && isAbsolute(home)) return home;
  const set = env.HOME === undefined ? 'HOME is not set' : `HOME is ${JSON.stringify(env.HOME)}`;
  throw new ConfigError(
    `cannot tell where your config folder is (${set}, and this user has no home folder in the system's user database): set HOME, or STORE_CONFIG_DIR to the folder for config.json`,
  );
}
