// The kinds of values users type, shared by every command's declaration: each schema turns a
// flag's text into a typed value or into a message that names the flag and the allowed values.
import { FILES, PROFILES, words } from '../completion/hints.js';
import { INT64_MAX, INT64_MIN, type Int64, PET_STATUSES } from '../schemas.js';
import * as z from '../zod.js';
import type { FlagSpec } from './define.js';

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

/** A non-empty text flag. */
export function textFlag(flag: string) {
  return z
    .string({ error: `${flag} is required` })
    .check(z.refine((text: string) => text.trim() !== '', `${flag} must not be empty`));
}

/** A switch: true when given (or false for a `--no-…` flag), else its default. */
export function switchFlag(flags: string, description: string, initial = false) {
  return { flags, description, schema: z._default(z.boolean(), initial) } satisfies FlagSpec;
}

/** `--status <status>`: one of the pet statuses, completed in shells. */
export function statusFlag(description: string) {
  return {
    flags: '--status <status>',
    description: `${description} (${PET_STATUSES.join(', ')})`,
    schema: z.optional(choiceFlag('--status', PET_STATUSES)),
    complete: words(PET_STATUSES),
  } satisfies FlagSpec;
}

/** A profile name, completed from the config. */
export function profileArg(description: string) {
  return { name: '<name>', description, schema: z.string(), complete: PROFILES };
}

/** A file name (`-` where the command reads stdin): an empty one, `--file "$UNSET"`, is
 * named as such instead of failing later as "cannot read --file  (ENOENT)". */
export function fileName(flag: string) {
  return z.string().check(z.minLength(1, `${flag} needs a file name (got "")`));
}

/** A file name, completed from the file system. */
export function fileFlag(flags: string, description: string) {
  const flag = flags.split(' ')[0] as string;
  return {
    flags,
    description,
    schema: z.optional(fileName(flag)),
    complete: FILES,
  } satisfies FlagSpec;
}
