// `store completion <shell>`: the script for one shell, from the program's own command tree.
import type { Command } from 'commander';
import { bashScript } from './bash.js';
import { fishScript } from './fish.js';
import { completionModel, withHelpWalk } from './model.js';
import type { Shell } from './shells.js';
import { zshScript } from './zsh.js';

const RENDERERS = { bash: bashScript, zsh: zshScript, fish: fishScript } as const;

export function completionScript(shell: Shell, program: Command): string {
  return RENDERERS[shell](withHelpWalk(completionModel(program)));
}
