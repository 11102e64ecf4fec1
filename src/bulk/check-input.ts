// An input of `pets add --file` checked against NewPet before it is sent, with what is wrong
// said in plain words that name the field: `status must be one of available, pending, sold
// (got "Sold")`, not a validator's message.
import type { CliError } from '../errors.js';
import { cutText, hasLoneSurrogate, nestedTooDeep, stringifyJson, TOO_DEEP } from '../json.js';
import { NewPet, PET_STATUSES } from '../schemas.js';
import { rejected } from './read-inputs.js';

const RULES: Record<string, string> = {
  name: 'must be a string with a character other than a space',
  categoryId: 'must be an integer in the int64 range',
  status: `must be one of ${PET_STATUSES.join(', ')}`,
};

function kindOf(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

/** A value as JSON, cut to a few words (a field may hold a megabyte). */
function shown(value: unknown): string {
  const json = stringifyJson(value);
  return json.length > PREVIEW_LENGTH ? `${cutText(json, PREVIEW_LENGTH - 1)}…` : json;
}

const PREVIEW_LENGTH = 60;

/** The top-level field whose text (at any depth) holds a lone surrogate, which a server may
 * store as U+FFFD (the sandbox refuses it); undefined when every string is well-formed. */
function loneSurrogateAt(value: object): string | undefined {
  return Object.keys(value).find((key) => hasLoneSurrogate(valueAt(value, key)));
}

const valueAt = (value: object, key: string): unknown => (value as Record<string, unknown>)[key];

export function checkInput(value: unknown): { pet: NewPet } | { error: CliError } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      error: rejected(
        'invalid_input',
        `expected an object with name and categoryId (got ${kindOf(value)})`,
      ),
    };
  }
  // Before anything is written back (the message below shows what was given): what cannot be
  // sent as JSON is refused as the input's own fault, as the sandbox would refuse it.
  if (nestedTooDeep(value)) {
    return { error: rejected('invalid_input', TOO_DEEP) };
  }
  const result = NewPet.safeParse(value);
  if (result.success) {
    const field = loneSurrogateAt(value);
    if (field === undefined) return { pet: value as NewPet };
    return {
      error: rejected(
        'invalid_input',
        `${field} must be well-formed Unicode: it holds half of a surrogate pair (got ${shown(valueAt(value, field))})`,
      ),
    };
  }
  const fields = new Map<string, string>();
  for (const issue of result.error.issues) {
    const field = String(issue.path[0] ?? '');
    if (fields.has(field)) continue;
    const given = Object.hasOwn(value, field)
      ? (value as Record<string, unknown>)[field]
      : undefined;
    if (given === undefined) fields.set(field, `${field} is required`);
    else {
      const rule = Object.hasOwn(RULES, field) ? RULES[field] : issue.message;
      fields.set(field, `${field} ${rule} (got ${shown(given)})`);
    }
  }
  return { error: rejected('invalid_input', [...fields.values()].join('; ')) };
}
