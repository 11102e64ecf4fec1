// What a command asks a person, in one place and by one rule (gh's): a question only where
// someone can answer it, stdin and stderr both terminals. Off a terminal a missing value is a
// usage error naming the flags, and a confirmation needs `--yes`. The first question says
// which profile the answers will go to (a write's dim profile line), so nothing is typed for
// the wrong environment.
import { FlagError } from './errors.js';
import type { IOStreams } from './io.js';
import { sanitize } from './render/sanitize.js';

export interface Asker {
  /** Whether a question can be asked here: stdin and stderr are terminals. */
  readonly canAsk: boolean;
  /** Asks until the answer parses: a FlagError from `parse` is shown and the question asked
   * again. Only where `canAsk`. */
  ask<T>(question: string, parse: (text: string) => T): Promise<T>;
  /** Whether to go on: `yes` (the command's `--yes`) answers for the person; otherwise asks
   * `question (y/N)` on a terminal, and off one refuses with exit 2 before anything is done. */
  confirm(question: string, yes: boolean): Promise<boolean>;
}

export function asker(
  io: IOStreams,
  signal: AbortSignal,
  announceWrite: () => Promise<void>,
): Asker {
  // Read when first asked, not when the context is made: process.stdin, made to tell, is a
  // file stream on /dev/null or a file (cron, `< input`), which loads fs/promises and
  // readline for commands that never ask anything.
  const canAsk = () => io.stdinIsTTY && io.stderrIsTTY;
  const ask = async <T>(question: string, parse: (text: string) => T): Promise<T> => {
    if (!canAsk()) throw new Error('ask() off a terminal: check canAsk first');
    await announceWrite();
    for (;;) {
      const answer = await io.prompt(question, signal);
      try {
        return parse(answer);
      } catch (error) {
        if (!(error instanceof FlagError)) throw error;
        io.err(`${sanitize(error.message)}\n`);
      }
    }
  };
  return {
    get canAsk() {
      return canAsk();
    },
    ask,
    async confirm(question, yes) {
      if (yes) return true;
      if (!canAsk()) {
        throw new FlagError(
          '--yes is required when store is not run at a terminal; nothing was changed',
        );
      }
      return ask(`${question} (y/N) `, yesOrNo);
    },
  };
}

/** y/yes for yes; Enter, n or no for no; anything else is asked again. */
export function yesOrNo(text: string): boolean {
  const answer = text.trim().toLowerCase();
  if (answer === 'y' || answer === 'yes') return true;
  if (answer === '' || answer === 'n' || answer === 'no') return false;
  throw new FlagError('answer y or n');
}
