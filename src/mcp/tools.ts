// The tools `store mcp` offers, made from the command declarations (src/commands/define.ts,
// `mcp`): each command's flags and arguments become its input schema, its help its description
// (or the declaration's words for MCP, where the help speaks of the command line). A tool
// call's arguments become the values commander would have collected, and go through the
// command's own parsing and checks: a bad one is refused as on the command line.

import type { ArgSpec, FlagSpec, OutputSpec, ToolSource } from '../commands/define.js';
import { choices, numberKind, takes } from '../commands/flags.js';
import { didYouMean } from '../commands/help/suggest.js';
import { FlagError } from '../errors.js';
import { LONE_SURROGATE } from '../json.js';
import type { CommandSet } from '../program.js';
import { Int64 } from '../schemas.js';
import type * as z from '../zod.js';
import { ERROR_REPORT_SCHEMA } from './result.js';

/** zod's toJSONSchema (given: it is loaded with the SDK, in dist/mcp.cjs). */
export type JsonSchemaOf = (
  schema: z.ZodMiniType,
  params: {
    io: 'input' | 'output';
    unrepresentable: 'any';
    override?: (context: { zodSchema: unknown; jsonSchema: Record<string, unknown> }) => void;
  },
) => Record<string, unknown>;

/** How a parameter's JSON value becomes what commander would have collected. */
type Kind = 'text' | 'switch' | 'list';

interface Param {
  kind: Kind;
  schema: Record<string, unknown>;
  required: boolean;
}

export interface Tool {
  name: string;
  /** The command it runs: `store pets list`. */
  command: string;
  /** The command line it runs, fixed flags and --json included: `store api --method GET --json`. */
  runs: string;
  access: 'read' | 'write';
  description: string;
  inputSchema: {
    type: 'object';
    properties: Record<string, Record<string, unknown>>;
    required?: string[];
    additionalProperties: false;
  };
  /** The result's structuredContent, from the declared --json output (none without one). */
  outputSchema?: Record<string, unknown>;
  params: ReadonlyMap<string, Param>;
  source: ToolSource;
}

/** Every command of `commands` whose declaration offers it, in the tree's order. */
export function toolsOf(commands: CommandSet, jsonSchema: JsonSchemaOf): Tool[] {
  const tools: Tool[] = [];
  for (const { noun, verbs } of commands.nouns) {
    for (const verb of verbs) {
      if (verb.tool) tools.push(toolOf([noun.name, verb.name], verb.tool, jsonSchema));
    }
  }
  for (const definition of commands.topLevel) {
    if (definition.tool) tools.push(toolOf([definition.name], definition.tool, jsonSchema));
  }
  return tools;
}

/** The tool of one declaration, `words` being the command's (`['pets', 'list']`). */
export function toolOf(
  words: readonly string[],
  source: ToolSource,
  jsonSchema: JsonSchemaOf,
): Tool {
  const { mcp } = source;
  const hidden = new Set<string>([...(mcp.omit ?? []), ...Object.keys(mcp.fixed ?? {})]);
  const params = new Map<string, Param>();
  const mustGive = (key: string) => mcp.required?.includes(key) === true;
  for (const [key, arg] of source.args) params.set(key, argParam(arg, jsonSchema, mustGive(key)));
  for (const [key, flag] of source.flags) {
    if (!hidden.has(key)) params.set(key, flagParam(flag, jsonSchema, mustGive(key)));
  }
  const command = `store ${words.join(' ')}`;
  const fixed = Object.entries(mcp.fixed ?? {}).map(([key, value]) => {
    const flag = source.flags.find(([name]) => name === key)?.[1];
    return `${flag?.flags.split(/[ ,]+/).find((word) => word.startsWith('--')) ?? key} ${String(value)}`;
  });
  const required = [...params].filter(([, param]) => param.required).map(([key]) => key);
  const runs = `${[command, ...fixed].join(' ')} --json`;
  return {
    name: mcp.name ?? words.join('_'),
    command,
    runs,
    access: mcp.access,
    description: `${mcp.description ?? source.description}. Runs \`${runs}\`${mcp.access === 'write' ? '; changes data' : ''}.`,
    inputSchema: {
      type: 'object',
      properties: Object.fromEntries([...params].map(([key, param]) => [key, param.schema])),
      ...(required.length > 0 ? { required } : {}),
      additionalProperties: false,
    },
    ...(source.output ? { outputSchema: outputSchema(source.output, jsonSchema) } : {}),
    params,
    source,
  };
}

/** An int64 in structuredContent: a number, or past 2^53 a string of its digits (result.ts). */
const INT64_JSON = {
  anyOf: [{ type: 'integer' }, { type: 'string', pattern: '^-?[0-9]+$' }],
  description: 'an int64: a number, or a string of its digits beyond 2^53',
};

/** `{ profile, data }`, data being the declared --json output; or a failure's `{ error }`. */
function outputSchema(output: OutputSpec, jsonSchema: JsonSchemaOf): Record<string, unknown> {
  let data: Record<string, unknown> = {};
  if (output.shape === 'object' || output.shape === 'list') {
    const { $schema: _, ...fields } = jsonSchema(output.fields, {
      io: 'output',
      unrepresentable: 'any',
      override: ({ zodSchema, jsonSchema: json }) => {
        if (zodSchema !== Int64) return;
        for (const key of Object.keys(json)) delete json[key];
        Object.assign(json, INT64_JSON);
      },
    });
    data = output.shape === 'list' ? { type: 'array', items: fields } : fields;
  }
  return {
    type: 'object',
    properties: {
      profile: { type: 'string', description: 'the profile used' },
      data,
      error: ERROR_REPORT_SCHEMA,
    },
    anyOf: [{ required: ['profile', 'data'] }, { required: ['error'] }],
  };
}

function flagParam(flag: FlagSpec, jsonSchema: JsonSchemaOf, required: boolean): Param {
  const switched = !/[<[]/.test(flag.flags);
  const kind: Kind = flag.repeatable ? 'list' : switched ? 'switch' : 'text';
  return { kind, schema: paramSchema(flag, jsonSchema), required };
}

function argParam(arg: ArgSpec, jsonSchema: JsonSchemaOf, required: boolean): Param {
  const kind: Kind = arg.name.includes('...') ? 'list' : 'text';
  const schema = paramSchema(arg, jsonSchema);
  return { kind, schema, required: required || arg.name.startsWith('<') };
}

/** A parameter's JSON Schema: its zod schema's input side, with the declaration's words (those
 * for MCP where the command line's speak of it). */
function paramSchema(spec: FlagSpec | ArgSpec, jsonSchema: JsonSchemaOf): Record<string, unknown> {
  const { $schema: _, ...schema } = jsonSchema(spec.schema, {
    io: 'input',
    unrepresentable: 'any',
  });
  const only = choices(spec.schema);
  if (only) schema.enum = [...only];
  // A number is text on the command line; an agent sends JSON's number, which is taken too
  // (commanderValue). Not an int64: past 2^53 a JSON number may be rounded already.
  const kind = numberKind(spec.schema);
  if (schema.type === 'string' && (kind === 'integer' || kind === 'number')) {
    schema.type = [kind, 'string'];
  }
  // What the value must be (`an integer from 1 to 100`), unless the enum says it.
  const rule = only ? undefined : takes(spec.schema);
  const description = spec.mcpDescription ?? spec.description;
  schema.description = rule ? `${description}; ${rule}` : description;
  return schema;
}

/**
 * The values commander would have collected for `args` (a tool call's arguments), the
 * declaration's fixed ones included; an argument the tool does not take, or of the wrong JSON
 * type, is a FlagError: nothing is run.
 */
export function commanderValues(
  tool: Tool,
  args: Readonly<Record<string, unknown>> | undefined,
): Record<string, unknown> {
  const raw: Record<string, unknown> = { ...tool.source.mcp.fixed };
  for (const [key, value] of Object.entries(args ?? {})) {
    const param = tool.params.get(key);
    if (!param) throw unknownArgument(tool, key);
    // null is what a client sends for "not given".
    if (value === null || value === undefined) continue;
    raw[key] = commanderValue(key, param.kind, value);
  }
  const missing = [...tool.params].filter(
    ([key, param]) => param.required && raw[key] === undefined,
  );
  if (missing.length > 0) {
    const names = missing.map(([key]) => key);
    throw new FlagError(`${tool.name} needs ${names.join(' and ')}`);
  }
  return raw;
}

function unknownArgument(tool: Tool, key: string): FlagError {
  const names = [...tool.params.keys()];
  if (names.length === 0) return new FlagError(`${tool.name} takes no arguments (got "${key}")`);
  const hint = didYouMean(key, names);
  return new FlagError(
    `${tool.name} takes no argument "${key}"${hint}; it takes ${names.join(', ')}`,
  );
}

function commanderValue(key: string, kind: Kind, value: unknown): unknown {
  if (kind === 'switch') {
    if (typeof value === 'boolean') return value;
    throw new FlagError(`${key} must be true or false (got ${JSON.stringify(value)})`);
  }
  if (kind === 'list') return (Array.isArray(value) ? value : [value]).map((v) => text(key, v));
  return text(key, value);
}

/** A value given as text (Unicode, as a command line's is), or as a number, which the command
 * reads as its digits. */
function text(key: string, value: unknown): string {
  if (typeof value === 'string') {
    // JSON can carry what no command line can: half of a UTF-16 pair, which is no text.
    const lone = LONE_SURROGATE.exec(value)?.[0];
    if (lone !== undefined) {
      const code = lone.charCodeAt(0).toString(16).toUpperCase();
      throw new FlagError(
        `${key} is not valid Unicode text (a lone surrogate, U+${code}); nothing was sent`,
      );
    }
    return value;
  }
  if (typeof value === 'number' && Number.isFinite(value)) {
    // The client's JSON parser may have rounded it already: 2^53 + 1 arrives as 2^53.
    if (Number.isInteger(value) && !Number.isSafeInteger(value)) {
      throw new FlagError(
        `${key} ${value} is beyond 2^53, where a JSON number can lose digits; give it as a string`,
      );
    }
    return String(value);
  }
  throw new FlagError(`${key} must be a string (got ${JSON.stringify(value)})`);
}
