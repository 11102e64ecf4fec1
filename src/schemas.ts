// The service's types, defined once: the client validates what users type and what the
// server returns with these, and the sandbox server validates requests with the same ones.
// Response objects are loose: fields the client does not know are kept.
import * as z from './zod.js';

export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;

function inInt64Range(value: number | bigint): boolean {
  const big = BigInt(value);
  return big >= INT64_MIN && big <= INT64_MAX;
}

/** An int64: a safe integer as a number, anything larger as a BigInt (see json.ts). */
const INT64_MESSAGE = 'must be an integer in the int64 range';
export const Int64 = z
  .union([z.int(), z.bigint()], { error: INT64_MESSAGE })
  .check(z.refine(inInt64Range, INT64_MESSAGE));
export type Int64 = z.infer<typeof Int64>;

export const PET_STATUSES = ['available', 'pending', 'sold'] as const;
export const PetStatus = z.enum(PET_STATUSES);
export type PetStatus = z.infer<typeof PetStatus>;

/** The removal date of GET /pets/{petId} (spec 4.3), announced by `store pets get` and sent
 * as Sunset by the sandbox. */
export const PET_GET_SUNSET = '2030-12-05';

export const LIMIT_MIN = 1;
export const LIMIT_MAX = 100;
export const LIMIT_DEFAULT = 20;

// One rule for the client and the sandbox: a name has at least one character that is not
// whitespace (what --name demands too); "" and "   " are refused alike.
export const NewPet = z.looseObject({
  name: z
    .string()
    .check(z.refine((name: string) => /\S/.test(name), 'must contain a non-whitespace character')),
  categoryId: Int64,
  status: z.optional(PetStatus),
});
export type NewPet = z.infer<typeof NewPet>;

// As returned: a status the client does not know yet is kept, like an unknown field, rather
// than failing the whole response. What users send is held to PetStatus (NewPet above).
export const Pet = z.looseObject({
  id: Int64,
  name: z.string(),
  categoryId: Int64,
  status: z.optional(z.string()),
});
export type Pet = z.infer<typeof Pet>;

export const Pets = z.array(Pet);

export const ErrorBody = z.looseObject({
  code: z.string(),
  message: z.string(),
  status: z.int(),
});
export type ErrorBody = z.infer<typeof ErrorBody>;

export const NewMessage = z.looseObject({
  message: z.string(),
});
export type NewMessage = z.infer<typeof NewMessage>;

export const Message = z.looseObject({
  id: z.string(),
  message: z.string(),
  status: z.string(),
  createdAt: z.string(),
});
export type Message = z.infer<typeof Message>;

/** Store orders: the spec does not describe them, so any JSON is accepted — but some JSON: an
 * empty body (204, or 200 with nothing) is no answer (`undefined` is no output for --json). */
export const Orders = z.unknown().check(z.refine((value) => value !== undefined));
