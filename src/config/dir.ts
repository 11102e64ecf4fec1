// Where config.json lives. Apart from file.ts (which loads zod) so that the completion of
// profile names, run on every TAB, stays cheap.
const { homedir } = process.getBuiltinModule('node:os');
const { join } = process.getBuiltinModule('node:path');

import type { Env } from '../io.js';

/** STORE_CONFIG_DIR, else the platform's config folder (XDG on Linux). */
export function configDir(env: Env, platform: NodeJS.Platform = process.platform): string {
  if (env.STORE_CONFIG_DIR) return env.STORE_CONFIG_DIR;
  const home = env.HOME || homedir();
  if (platform === 'darwin') return join(home, 'Library', 'Preferences', 'store');
  if (platform === 'win32') {
    return join(env.APPDATA || join(home, 'AppData', 'Roaming'), 'store', 'Config');
  }
  return join(env.XDG_CONFIG_HOME || join(home, '.config'), 'store');
}
