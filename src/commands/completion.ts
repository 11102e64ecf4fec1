// `store completion <shell>` prints a completion script generated from the program itself;
// the hidden `store __complete profiles` is what those scripts call back for profile names.
import type { Command } from 'commander';
import { completionScript } from '../completion/generate.js';
import { profileCompletions } from '../completion/profiles.js';
import { SHELLS, type Shell } from '../completion/shells.js';
import type { Context } from '../context.js';
import { FlagError } from '../errors.js';
import * as z from '../zod.js';
import { action, type ContextFactory } from './action.js';
import { choiceFlag, examples } from './flags.js';

export interface CompletionOptions {
  shell?: Shell;
}

export interface CompleteOptions {
  kind: 'profiles';
}

const Flags = z.object({ shell: z.optional(choiceFlag('shell', SHELLS)) });
const CompleteFlags = z.object({ kind: choiceFlag('__complete', ['profiles']) });

export function register(program: Command, context: ContextFactory): void {
  program
    .command('completion')
    .description('Print the shell completion script for bash, zsh or fish')
    .argument('[shell]', SHELLS.join(', '))
    .addHelpText(
      'after',
      examples(
        'store completion zsh > ~/.zfunc/_store',
        'store completion fish > ~/.config/fish/completions/store.fish',
        'source <(store completion bash)',
      ),
    )
    .action(action(context, Flags, (opts, ctx) => run(opts, ctx, program)));
  // Hidden: not a command for people; kept cheap, as it runs on every TAB.
  program
    .command('__complete', { hidden: true })
    .description('Print completion candidates, one per line (used by the completion scripts)')
    .argument('<kind>', 'profiles')
    .addHelpText('after', examples('store __complete profiles'))
    .action(action(context, CompleteFlags, complete));
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
