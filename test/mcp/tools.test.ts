// The tools of `store mcp` come from the command declarations: one declaration, no second list.
import { describe, expect, it } from 'vitest';
import { defineCommand, type FlagSpec } from '../../src/commands/define.js';
import { intFlag, statusFlag } from '../../src/commands/flags.js';
import { ERROR_REPORT_SCHEMA } from '../../src/mcp/result.js';
import { toJSONSchema } from '../../src/mcp/sdk.js';
import { commanderValues, type JsonSchemaOf, toolOf, toolsOf } from '../../src/mcp/tools.js';
import { loadCommands } from '../../src/program.js';
import * as z from '../../src/zod.js';
import { run } from '../helpers/cli.js';

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
      limit: {
        type: ['integer', 'string'],
        description: 'at most n things; an integer from 1 to 100',
      },
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

  it('describe what a call does, not the command line: the declaration’s words for MCP', async () => {
    const tools = toolsOf(await loadCommands(), jsonSchema);
    const described = (name: string) => {
      const tool = tools.find((candidate) => candidate.name === name);
      const params = Object.entries(tool?.inputSchema.properties ?? {});
      return [
        tool?.description,
        ...params.map(([key, schema]) => `${key}: ${String(schema.description)}`),
      ];
    };
    expect(described('messages_send')).toEqual([
      'Send a message. Runs `store messages send --json`; changes data.',
      'text: the message',
    ]);
    expect(described('pets_add')).toEqual([
      'Add one animal. Runs `store pets add --json`; changes data.',
      'name: the animal’s name',
      'categoryId: the id of its category (int64); an integer in the int64 range',
      'status: its status (available, pending, sold)',
    ]);
    expect(described('api_get')).toEqual([
      'Send a GET request to the service with the profile’s key; the result is the answer’s body. Runs `store api --method GET --json`.',
      'path: relative to the base URL (/pets?limit=5, pets/42), or a URL on its host',
      'rawField: a query parameter, key=value; a list for several',
      "header: extra request headers, each 'Name: value'",
    ]);
    // The command line's help keeps its own.
    const help = await run(['messages', 'send', '--help']);
    expect(help.stdout).toContain('Send a message (the text from the argument, or from stdin)');
    expect(help.stdout).toMatch(/text +the message; - or nothing reads it from stdin/);
    const api = await run(['api', '--help']);
    expect(api.stdout).toMatch(/without -X, fields send a\s+POST; repeatable/);
  });

  it('refuse text that is not Unicode (a lone surrogate): nothing is run', async () => {
    const tools = toolsOf(await loadCommands(), jsonSchema);
    const send = tools.find((tool) => tool.name === 'messages_send');
    const api = tools.find((tool) => tool.name === 'api_get');
    if (!send || !api) throw new Error('no messages_send or api_get');
    expect(() => commanderValues(send, { text: 'a\ud800b' })).toThrow(
      'text is not valid Unicode text (a lone surrogate, U+D800); nothing was sent',
    );
    expect(() => commanderValues(api, { path: '/pets', rawField: ['a=1', 'b=\udfff'] })).toThrow(
      'rawField is not valid Unicode text (a lone surrogate, U+DFFF); nothing was sent',
    );
    // A pair is one character, whole: taken.
    expect(commanderValues(send, { text: 'a\ud83d\udc3eb' })).toEqual({ text: 'a🐾b' });
  });

  it('requires the arguments a tool call must give: a message’s text (a call has no stdin)', async () => {
    const tools = toolsOf(await loadCommands(), jsonSchema);
    const send = tools.find((tool) => tool.name === 'messages_send');
    if (!send) throw new Error('no messages_send');
    expect(send.inputSchema.required).toEqual(['text']);
    expect(() => commanderValues(send, {})).toThrow('messages_send needs text');
  });
});
