// What `store mcp` takes from the Model Context Protocol SDK, and zod's toJSONSchema: a file
// of their own in dist/ (mcp.cjs, scripts/build.js), read only by `store mcp`. The low-level
// Server is enough: the tools' input schemas are JSON Schema made from the declarations, so
// the SDK's McpServer (which wants full zod schemas for them) is not needed. The SDK's
// protocol is checked with full zod, which comes in this file with it, not in store.cjs.
export { Server } from '@modelcontextprotocol/sdk/server/index.js';
export { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
export { STDIO_DEFAULT_MAX_BUFFER_SIZE } from '@modelcontextprotocol/sdk/shared/stdio.js';
export {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
export { toJSONSchema } from 'zod/v4/core';
