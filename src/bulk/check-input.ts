// An input of `pets add --file` checked against NewPet before it is sent, with what is wrong
// said in plain words that name the field: `status must be one of available, pending, sold
// (got "Sold")`, not a validator's message.
import type { CliError } from '../errors.js';
import { stringifyJson } from '../json.js';
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

export function checkInput(value: unknown): { pet: NewPet } | { error: CliError } {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return {
      error: rejected(
        'invalid_input',
        `expected an object with name and categoryId (got ${kindOf(value)})`,
      ),
    };
  }
  const result = NewPet.safeParse(value);
  if (result.success) return { pet: value as NewPet };
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
      fields.set(field, `${field} ${rule} (got ${stringifyJson(given)})`);
    }
  }
  return { error: rejected('invalid_input', [...fields.values()].join('; ')) };
}
