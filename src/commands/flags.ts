// The kinds of values users type, shared by every command's declaration: each schema turns a
// flag's text into a typed value or into a message that names the flag and the allowed values.
import { FILES, PROFILES, words } from '../completion/hints.js';
import { INT64_MAX, INT64_MIN, type Int64, PET_STATUSES } from '../schemas.js';
import * as z from '../zod.js';
import type { FlagSpec } from './define.js';

/** What each flag's value must be, by its schema (`one of available, pending, sold`): said
 * when the flag is given without one (define.ts). */
const TAKES = new WeakMap<object, string>();

/** The kind of number a flag's value is, for programs (`store help --json`). */
export type NumberKind = 'integer' | 'int64' | 'number';
const KINDS = new WeakMap<object, NumberKind>();

/** `schema`, which takes `rule` (said when its flag comes without a value), a number of
 * `kind` when it is one. */
export function withRule<S extends z.ZodMiniType>(schema: S, rule: string, kind?: NumberKind): S {
  TAKES.set(schema, rule);
  if (kind) KINDS.set(schema, kind);
  return schema;
}

/** The kind of number `schema` takes, if it takes one. */
export function numberKind(schema: z.ZodMiniType): NumberKind | undefined {
  return noted(KINDS, schema);
}

/** What `schema` takes, looking through z.optional and z._default by their public `def`. */
export function takes(schema: z.ZodMiniType): string | undefined {
  return noted(TAKES, schema);
}

/** What `notes` holds for `schema`, or for the schema z.optional or z._default wraps. */
function noted<T>(notes: WeakMap<object, T>, schema: z.ZodMiniType): T | undefined {
  let inner: z.ZodMiniType | undefined = schema;
  while (inner) {
    const note = notes.get(inner);
    if (note !== undefined) return note;
    const def: object = inner.def;
    inner = 'innerType' in def ? (def.innerType as z.ZodMiniType) : undefined;
  }
  return undefined;
}

/** A flag's text turned into a value by `convert`, which returns an error message instead
 * when the text will not do. */
function flagValue<T>(
  missing: string,
  rule: string,
  convert: (text: string) => { value: T } | string,
  kind?: NumberKind,
) {
  const schema = z.pipe(
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
  return withRule(schema, rule, kind);
}

const INTEGER = /^-?\d+$/;

/** An integer from min to max, from a flag's text. */
export function intFlag(flag: string, min: number, max: number) {
  const rule = `an integer from ${min} to ${max}`;
  return flagValue(
    `${flag} needs a value`,
    rule,
    (text) => {
      const value = Number(text.trim());
      if (INTEGER.test(text.trim()) && value >= min && value <= max) return { value };
      return `${flag} must be ${rule} (got ${JSON.stringify(text)})`;
    },
    'integer',
  );
}

/** An int64 identifier: a number while it is safe, a BigInt beyond 2^53. */
export function int64Flag(flag: string) {
  const rule = 'an integer in the int64 range';
  return flagValue(
    `${flag} is required`,
    rule,
    (text): { value: Int64 } | string => {
      const trimmed = text.trim();
      const big = INTEGER.test(trimmed) ? BigInt(trimmed) : undefined;
      if (big === undefined || big < INT64_MIN || big > INT64_MAX) {
        return `${flag} must be ${rule} (got ${JSON.stringify(text)})`;
      }
      return { value: Number.isSafeInteger(Number(big)) ? Number(big) : big };
    },
    'int64',
  );
}

/** The values a choice flag's schema takes (choiceFlag): an agent's tool lists them. */
const CHOICES = new WeakMap<object, readonly string[]>();

export function choiceFlag<const T extends readonly [string, ...string[]]>(
  flag: string,
  values: T,
) {
  const rule = `one of ${values.join(', ')}`;
  const schema = flagValue(`${flag} needs a value`, rule, (text): { value: T[number] } | string =>
    values.includes(text)
      ? { value: text }
      : `${flag} must be ${rule} (got ${JSON.stringify(text)})`,
  );
  CHOICES.set(schema, values);
  return schema;
}

/** The only values `schema` takes, when it is a choice flag's (looking through z.optional). */
export function choices(schema: z.ZodMiniType): readonly string[] | undefined {
  return noted(CHOICES, schema);
}

/**
 * Node reads the command line as UTF-8 and puts U+FFFD where its bytes are not (a Latin-1
 * terminal or file): such text would be sent with its letters lost. The message for it.
 */
export function notUtf8(what: string): string {
  return `${what} holds bytes that are not UTF-8 (U+FFFD stands in for them); nothing was sent`;
}

export const hasUnreadableBytes = (text: string) => text.includes('\uFFFD');

/** A non-empty text flag, of UTF-8 text. */
export function textFlag(flag: string) {
  return z.string({ error: `${flag} is required` }).check(
    z.refine((text: string) => text.trim() !== '', `${flag} must not be empty`),
    z.refine((text: string) => !hasUnreadableBytes(text), notUtf8(flag)),
  );
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
