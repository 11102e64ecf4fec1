// What a flag given without its value is told (`store pets list --status`): what it takes,
// from its schema. Filled as the command tree is built (define.ts); read by StoreCommand when
// commander finds the value missing.

const MESSAGES = new Map<string, string>();

/** Records what the option spelled `flags` (as commander spells it) says when its value is
 * missing. */
export function noteMissingValue(flags: string, message: string): void {
  MESSAGES.set(flags, message);
}

/** The message for the option spelled `flags`, if it is known. */
export function missingValueMessage(flags: string): string | undefined {
  return MESSAGES.get(flags);
}
