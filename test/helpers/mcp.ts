// `store mcp` as an MCP client meets it: a process spoken to through the official SDK's client.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { afterThisTest } from './cleanup.js';
import { BIN } from './process.js';

export interface Served {
  client: Client;
  /** What the server wrote on stderr so far. */
  stderr(): string;
}

/** `store mcp …args` with `env`, connected to the SDK's client until the end of the test. */
export async function serve(args: string[], env: NodeJS.ProcessEnv): Promise<Served> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [BIN, 'mcp', ...args],
    env: env as Record<string, string>,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk) => {
    stderr += chunk;
  });
  const client = new Client({ name: 'store-test', version: '1.0.0' });
  afterThisTest(() => client.close());
  await client.connect(transport);
  return { client, stderr: () => stderr };
}
