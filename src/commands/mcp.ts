// `store mcp`: the store's commands as tools for AI agents (src/mcp/). Its flags here; the
// server, the SDK and the tools are loaded only when it runs.
import type { Context } from '../context.js';
import { defineCommand } from './define.js';
import { switchFlag } from './flags.js';

export const command = defineCommand({
  name: 'mcp',
  description: 'Serve the store’s commands to an AI agent over stdio (Model Context Protocol)',
  flags: {
    allowWrites: switchFlag(
      '--allow-writes',
      'also offer the tools that change data (read-only without it)',
    ),
  },
  examples: ['store mcp', 'store -p staging mcp --allow-writes'],
  run,
});

export async function run(opts: { allowWrites: boolean }, ctx: Context): Promise<void> {
  const { serve } = await import('../mcp/server.js');
  await serve(opts, ctx);
}
