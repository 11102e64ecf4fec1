// `store completion <shell>` prints a completion script generated from the program itself;
// the hidden `store __complete profiles` is what those scripts call back for profile names.
import type { Command } from 'commander';
import { completionScript } from '../completion/generate.js';
import { words } from '../completion/hints.js';
import { profileCompletions } from '../completion/profiles.js';
import { SHELLS, type Shell } from '../completion/shells.js';
import type { Context } from '../context.js';
import { FlagError } from '../errors.js';
import * as z from '../zod.js';
import { defineCommand } from './define.js';
import { choiceFlag } from './flags.js';

export interface CompletionOptions {
  shell?: Shell;
}

export interface CompleteOptions {
  kind: 'profiles';
}

export const command = defineCommand({
  name: 'completion',
  description: 'Print the shell completion script for bash, zsh or fish',
  args: {
    shell: {
      name: '[shell]',
      description: SHELLS.join(', '),
      schema: z.optional(choiceFlag('shell', SHELLS)),
      complete: words(SHELLS),
    },
  },
  examples: [
    // The folders are made: a fresh account has neither until fish's first session.
    'mkdir -p ~/.zfunc && store completion zsh > ~/.zfunc/_store',
    'mkdir -p ~/.config/fish/completions && store completion fish > ~/.config/fish/completions/store.fish',
    'source <(store completion bash)',
  ],
  run: (opts, ctx, invoked) => run(opts, ctx, rootOf(invoked)),
});

// Hidden: not a command for people; kept cheap, as it runs on every TAB.
export const completeCommand = defineCommand({
  name: '__complete',
  hidden: true,
  description: 'Print completion candidates, one per line (used by the completion scripts)',
  args: {
    kind: {
      name: '<kind>',
      description: 'profiles',
      schema: choiceFlag('__complete', ['profiles']),
    },
  },
  examples: ['store __complete profiles'],
  run: complete,
});

function rootOf(command: Command): Command {
  let root = command;
  while (root.parent) root = root.parent;
  return root;
}

export async function run(opts: CompletionOptions, ctx: Context, program: Command): Promise<void> {
  if (opts.shell === undefined) {
    throw new FlagError(
      `a shell is required: one of ${SHELLS.join(', ')} (e.g. store completion bash)`,
    );
  }
  ctx.io.out(completionScript(opts.shell, program));
}

export async function complete(_opts: CompleteOptions, ctx: Context): Promise<void> {
  ctx.io.out(profileCompletions(ctx.env));
}
