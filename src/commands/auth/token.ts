import type { Command } from 'commander';
import type { Context } from '../../context.js';
import { AuthError } from '../../errors.js';
import * as z from '../../zod.js';
import { action, type ContextFactory } from '../action.js';
import { examples } from '../flags.js';

const Flags = z.object({});

export function register(auth: Command, context: ContextFactory): void {
  auth
    .command('token')
    .description('Print the API key in use (the only command that shows it unmasked)')
    .addHelpText(
      'after',
      examples(
        'store auth token',
        'curl -H "Authorization: Bearer $(store auth token)" https://api.animal-store.example/v1/pets',
      ),
    )
    .action(action(context, Flags, run));
}

export async function run(_opts: object, ctx: Context): Promise<void> {
  const profile = await ctx.profile();
  if (!profile.apiKey) {
    throw new AuthError(`no API key for profile ${profile.name}: run \`store auth login\``);
  }
  ctx.io.out(`${profile.apiKey}\n`);
}
