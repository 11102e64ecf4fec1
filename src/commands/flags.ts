// Validation of what users type, shared by every command. Each schema's messages name
// the flag and the allowed values; parseFlags turns the first failure into a FlagError.
import { FlagError } from '../errors.js';
import { INT64_MAX, INT64_MIN, type Int64, PET_STATUSES } from '../schemas.js';
import * as z from '../zod.js';

export function parseFlags<S extends z.ZodMiniType>(schema: S, raw: unknown): z.output<S> {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  throw new FlagError(result.error.issues[0]?.message ?? 'invalid arguments');
}

/** A flag's text turned into a value by `convert`, which returns an error message instead
 * when the text will not do. */
function flagValue<T>(missing: string, convert: (text: string) => { value: T } | string) {
  return z.pipe(
    z.string({ error: missing }),
    z.transform((text: string, ctx): T => {
      const converted = convert(text);
      if (typeof converted === 'string') {
        ctx.issues.push({ code: 'custom', message: converted, input: text });
        return z.NEVER;
      }
      return converted.value;
    }),
  );
}

const INTEGER = /^-?\d+$/;

/** An integer from min to max, from a flag's text. */
export function intFlag(flag: string, min: number, max: number) {
  return flagValue(`${flag} needs a value`, (text) => {
    const value = Number(text.trim());
    if (INTEGER.test(text.trim()) && value >= min && value <= max) return { value };
    return `${flag} must be an integer from ${min} to ${max} (got ${JSON.stringify(text)})`;
  });
}

/** An int64 identifier: a number while it is safe, a BigInt beyond 2^53. */
export function int64Flag(flag: string) {
  return flagValue(`${flag} is required`, (text): { value: Int64 } | string => {
    const trimmed = text.trim();
    const big = INTEGER.test(trimmed) ? BigInt(trimmed) : undefined;
    if (big === undefined || big < INT64_MIN || big > INT64_MAX) {
      return `${flag} must be an integer in the int64 range (got ${JSON.stringify(text)})`;
    }
    return { value: Number.isSafeInteger(Number(big)) ? Number(big) : big };
  });
}

export function choiceFlag<const T extends readonly [string, ...string[]]>(
  flag: string,
  values: T,
) {
  return flagValue(`${flag} needs a value`, (text): { value: T[number] } | string =>
    values.includes(text)
      ? { value: text }
      : `${flag} must be one of ${values.join(', ')} (got ${JSON.stringify(text)})`,
  );
}

export const statusFlag = choiceFlag('--status', PET_STATUSES);

/** A non-empty text flag. */
export function textFlag(flag: string) {
  return z
    .string({ error: `${flag} is required` })
    .check(z.refine((text: string) => text.trim() !== '', `${flag} must not be empty`));
}

/** Examples shown at the end of a command's --help. */
export function examples(...lines: string[]): string {
  return `\nExamples:\n${lines.map((line) => `  $ ${line}`).join('\n')}\n`;
}
