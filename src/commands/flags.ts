// Validation of what users type, shared by every command. Each schema's messages name
// the flag and the allowed values; parseFlags turns the first failure into a FlagError.
import { z } from 'zod';
import { FlagError } from '../errors.js';
import { INT64_MAX, INT64_MIN, type Int64, PET_STATUSES } from '../schemas.js';

export function parseFlags<S extends z.ZodType>(schema: S, raw: unknown): z.output<S> {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  throw new FlagError(result.error.issues[0]?.message ?? 'invalid arguments');
}

const INTEGER = /^-?\d+$/;

/** An integer from min to max, from a flag's text. */
export function intFlag(flag: string, min: number, max: number) {
  const rule = `${flag} must be an integer from ${min} to ${max}`;
  return z.string({ error: `${flag} needs a value` }).transform((text, ctx) => {
    const value = Number(text.trim());
    if (!INTEGER.test(text.trim()) || value < min || value > max) {
      ctx.addIssue({ code: 'custom', message: `${rule} (got ${JSON.stringify(text)})` });
      return z.NEVER;
    }
    return value;
  });
}

/** An int64 identifier: a number while it is safe, a BigInt beyond 2^53. */
export function int64Flag(flag: string) {
  return z.string({ error: `${flag} is required` }).transform((text, ctx): Int64 => {
    const trimmed = text.trim();
    const big = INTEGER.test(trimmed) ? BigInt(trimmed) : undefined;
    if (big === undefined || big < INT64_MIN || big > INT64_MAX) {
      ctx.addIssue({
        code: 'custom',
        message: `${flag} must be an integer in the int64 range (got ${JSON.stringify(text)})`,
      });
      return z.NEVER;
    }
    return Number.isSafeInteger(Number(big)) ? Number(big) : big;
  });
}

export function choiceFlag<const T extends readonly [string, ...string[]]>(
  flag: string,
  values: T,
) {
  return z.string().transform((text, ctx): T[number] => {
    if (!values.includes(text)) {
      ctx.addIssue({
        code: 'custom',
        message: `${flag} must be one of ${values.join(', ')} (got ${JSON.stringify(text)})`,
      });
      return z.NEVER;
    }
    return text;
  });
}

export const statusFlag = choiceFlag('--status', PET_STATUSES);

/** A non-empty text flag. */
export function textFlag(flag: string) {
  return z
    .string({ error: `${flag} is required` })
    .refine((text) => text.trim() !== '', { message: `${flag} must not be empty` });
}

/** Examples shown at the end of a command's --help. */
export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`;
}
