// The tools of `store mcp` come from the command declarations: one declaration, no second list.
import { describe, expect, it } from 'vitest';
import { defineCommand, type FlagSpec } from '../../src/commands/define.js';
import { intFlag, statusFlag } from '../../src/commands/flags.js';
import { ERROR_REPORT_SCHEMA } from '../../src/mcp/result.js';
import { toJSONSchema } from '../../src/mcp/sdk.js';
import { commanderValues, type JsonSchemaOf, toolOf, toolsOf } from '../../src/mcp/tools.js';
import { loadCommands } from '../../src/program.js';
import * as z from '../../src/zod.js';

const jsonSchema = toJSONSchema as JsonSchemaOf;

/** A declaration like pets list's, with `flags`. */
function declared(flags: Record<string, FlagSpec>) {
  const definition = defineCommand({
    name: 'list',
    description: 'List things',
    flags,
    mcp: { access: 'read' },
    examples: [],
    run: async () => {},
  });
  if (!definition.tool) throw new Error('the declaration offers no tool');
  return toolOf(['things', 'list'], definition.tool, jsonSchema);
}

describe('a tool from its declaration', () => {
  it('has in its input schema every flag the command declares, and a new one once declared', () => {
    const status = statusFlag('only things with this status');
    const before = declared({ status });
    expect(before.name).toBe('things_list');
    expect(before.description).toBe('List things. Runs `store things list --json`.');
    expect(before.inputSchema).toEqual({
      type: 'object',
      properties: {
        status: {
          type: 'string',
          enum: ['available', 'pending', 'sold'],
          description: 'only things with this status (available, pending, sold)',
        },
      },
      additionalProperties: false,
    });

    const limit = {
      flags: '--limit <n>',
      description: 'at most n things',
      schema: z.optional(intFlag('--limit', 1, 100)),
    };
    const after = declared({ status, limit });
    expect(after.inputSchema.properties).toEqual({
      ...before.inputSchema.properties,
      limit: { type: 'string', description: 'at most n things; an integer from 1 to 100' },
    });
    // And the new flag is taken, through its own schema: the command line's rule.
    expect(commanderValues(after, { limit: 7 })).toEqual({ limit: '7' });
    expect(() => commanderValues(before, { limit: 7 })).toThrow(
      'things_list takes no argument "limit"; it takes status',
    );
  });

  it('gives what commander would have collected: text, switches, lists, fixed values', async () => {
    const tools = toolsOf(await loadCommands(), jsonSchema);
    const api = tools.find((tool) => tool.name === 'api_get');
    if (!api) throw new Error('no api_get');
    expect(commanderValues(api, { path: '/pets', rawField: 'limit=1', header: null })).toEqual({
      method: 'GET',
      path: '/pets',
      rawField: ['limit=1'],
    });
    // The method is the declaration's, not the agent's.
    expect(() => commanderValues(api, { path: '/pets', method: 'DELETE' })).toThrow(
      'api_get takes no argument "method"; it takes path, rawField, header',
    );
    expect(() => commanderValues(api, { path: { a: 1 } })).toThrow(
      'path must be a string (got {"a":1})',
    );
  });

  it('are the commands declared with `mcp`, writes marked', async () => {
    const tools = toolsOf(await loadCommands(), jsonSchema);
    expect(tools.map((tool) => [tool.name, tool.command, tool.access])).toEqual([
      ['pets_list', 'store pets list', 'read'],
      ['pets_add', 'store pets add', 'write'],
      ['pets_get', 'store pets get', 'read'],
      ['messages_send', 'store messages send', 'write'],
      ['orders_list', 'store orders list', 'read'],
      ['auth_status', 'store auth status', 'read'],
      ['api_get', 'store api', 'read'],
    ]);
  });

  it('describe their result from the declared --json output, int64 ids as numbers or strings', async () => {
    const tools = toolsOf(await loadCommands(), jsonSchema);
    const list = tools.find((tool) => tool.name === 'pets_list');
    const int64 = {
      anyOf: [{ type: 'integer' }, { type: 'string', pattern: '^-?[0-9]+$' }],
      description: 'an int64: a number, or a string of its digits beyond 2^53',
    };
    expect(list?.outputSchema).toEqual({
      type: 'object',
      properties: {
        profile: { type: 'string', description: 'the profile used' },
        data: {
          type: 'array',
          items: {
            type: 'object',
            properties: {
              id: int64,
              name: { type: 'string' },
              categoryId: int64,
              status: { type: 'string' },
            },
            required: ['id', 'name', 'categoryId'],
            additionalProperties: {},
          },
        },
        error: ERROR_REPORT_SCHEMA,
      },
      anyOf: [{ required: ['profile', 'data'] }, { required: ['error'] }],
    });
    // Whatever the API answered: any data.
    const api = tools.find((tool) => tool.name === 'api_get');
    expect(api?.outputSchema?.properties).toEqual({
      ...(list?.outputSchema?.properties as object),
      data: {},
    });
  });
});
