// What a flag given without its value is told (`store pets list --status`): commander's own
// "option '--status <status>' argument missing" names neither the flag as typed nor what it
// takes. Filled as the command tree is built (define.ts); read by main() for that error,
// without loading commander.

const MESSAGES = new Map<string, string>();

/** Records what the option spelled `flags` (as commander spells it) says when its value is
 * missing. */
export function noteMissingValue(flags: string, message: string): void {
  MESSAGES.set(flags, message);
}

/** The message for commander's "option '…' argument missing", if the option is known. */
export function missingValueMessage(commanderMessage: string): string | undefined {
  const flags = /option '([^']+)' argument missing/.exec(commanderMessage)?.[1];
  return flags === undefined ? undefined : MESSAGES.get(flags);
}
