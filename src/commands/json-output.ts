// What --json FIELDS and --jq may ask of a command, from its output declaration (define.ts):
// the fields and their types, listed in its --help and in `store help --json`, and checked
// (with the jq expression compiled) before the command reads or sends anything.
import type { Command } from 'commander';
import type { GlobalOptions } from '../context.js';
import { FlagError, withHint } from '../errors.js';
import { prepareJq } from '../render/output.js';
import type * as z from '../zod.js';
import type { OutputSpec } from './define.js';
import { helpWidth, paragraph } from './help/layout.js';
import { didYouMean } from './help/suggest.js';

/** The fields `--json FIELDS` may name; undefined when any may be (output not described). */
export function declaredFields(output: OutputSpec | undefined): string[] | undefined {
  return output && output.shape !== 'any' ? Object.keys(output.fields.def.shape) : undefined;
}

export interface FieldType {
  name: string;
  /** A JSON type: string, integer, number, boolean, object, array, any; `|null` when it may
   * be null. */
  type: string;
  /** Whether an object may lack it (`--json` then gives null for it). */
  optional: boolean;
}

/** Each declared field with its JSON type, in declaration order. */
export function fieldTypes(output: OutputSpec | undefined): FieldType[] {
  if (!output || output.shape === 'any') return [];
  return Object.entries(output.fields.def.shape).map(([name, schema]) => {
    const def = (schema as z.ZodMiniType).def as Def;
    const optional = def.type === 'optional';
    return { name, type: jsonType(optional ? (def.innerType as z.ZodMiniType) : schema), optional };
  });
}

interface Def {
  type: string;
  format?: string;
  innerType?: unknown;
  options?: unknown[];
}

function jsonType(schema: unknown): string {
  const def = (schema as z.ZodMiniType).def as Def;
  switch (def.type) {
    case 'string':
    case 'enum':
      return 'string';
    case 'bigint':
      return 'integer';
    case 'number':
      return def.format?.includes('int') ? 'integer' : 'number';
    case 'boolean':
    case 'object':
    case 'array':
      return def.type;
    case 'nullable':
      return `${jsonType(def.innerType)}|null`;
    case 'optional':
    case 'default':
      return jsonType(def.innerType);
    case 'union':
      return [...new Set((def.options ?? []).map(jsonType))].join('|');
    default:
      return 'any';
  }
}

/** `pets list`, as commands are named in messages. */
export function commandPath(command: Command): string {
  const names: string[] = [];
  for (let at: Command | null = command; at?.parent; at = at.parent) names.unshift(at.name());
  return names.join(' ');
}

/** The fields under a command's --help (before its examples). */
export function jsonFieldsHelp(
  output: OutputSpec,
): (context: { error: boolean; command: Command }) => string {
  return ({ error, command }) => {
    const fields = declaredFields(output);
    const list = fields ? fields.join(', ') : 'not described: --json FIELDS takes any name';
    const width = helpWidth(command, error);
    return `\n${paragraph('JSON fields (--json FIELDS, --jq):', width)}\n${paragraph(list, width, '  ')}`;
  };
}

/** Refuses --json FIELDS naming a field the command does not have, and a --jq expression that
 * does not compile, before the command runs. */
export async function prepareJsonOutput(
  output: OutputSpec | undefined,
  options: GlobalOptions,
  path: string,
): Promise<void> {
  if (!options.jsonFields && options.jq === undefined) return;
  if (!output) {
    const flag = options.jq === undefined ? '--json FIELDS' : '--jq';
    throw new FlagError(`store ${path} prints no JSON data: ${flag} does not apply to it`);
  }
  const fields = declaredFields(output);
  const unknown = fields && options.jsonFields?.find((name) => !fields.includes(name));
  if (fields && unknown !== undefined) {
    const meant = didYouMean(unknown, fields);
    throw withHint(
      new FlagError(`unknown JSON field "${unknown}" for store ${path}${meant}`),
      `its fields: ${fields.join(', ')}`,
    );
  }
  if (options.jq !== undefined) await prepareJq(options.jq);
}
