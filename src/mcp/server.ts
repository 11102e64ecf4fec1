// `store mcp`: the Model Context Protocol over stdio. stdout carries the protocol and nothing
// else; what the server has to say goes to stderr. Each tool call runs its command as the CLI
// would under --json (src/mcp/tools.ts), with what the server settled at its start
// (src/mcp/session.ts): the profile, its key, one set of connections.
import type { Writable } from 'node:stream';
import { didYouMean } from '../commands/help/suggest.js';
import type { Context } from '../context.js';
import { CliError, ExitCode, FlagError } from '../errors.js';
import type { IOStreams } from '../io.js';
import { sanitize } from '../render/sanitize.js';
import { version } from '../version.js';
import { failure, success, type ToolResult } from './result.js';
import { type McpSession, openSession } from './session.js';
import { toolIO } from './tool-io.js';
import { commanderValues, type JsonSchemaOf, type Tool, toolsOf } from './tools.js';

export interface McpOptions {
  allowWrites: boolean;
}

export async function serve(opts: McpOptions, ctx: Context): Promise<void> {
  // Settled before anything is served: an unknown profile is refused here (exit 2).
  const session = await openSession(ctx);
  try {
    await serveSession(opts, ctx, session);
  } finally {
    await session.close();
  }
}

async function serveSession(opts: McpOptions, ctx: Context, session: McpSession): Promise<void> {
  const { profile } = session;
  const [sdk, { loadCommands }] = await Promise.all([import('./sdk.js'), import('../program.js')]);
  const tools = toolsOf(await loadCommands(), sdk.toJSONSchema as JsonSchemaOf);
  const offered = tools.filter((tool) => opts.allowWrites || tool.access === 'read');
  const log = (line: string) => ctx.io.err(`${sanitize(line)}\n`);

  const server = new sdk.Server(
    { name: 'store', version: version() },
    { capabilities: { tools: {} } },
  );
  server.setRequestHandler(sdk.ListToolsRequestSchema, () => ({
    tools: offered.map((tool) => ({
      name: tool.name,
      description: tool.description,
      inputSchema: tool.inputSchema,
      ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
      annotations: {
        readOnlyHint: tool.access === 'read',
        destructiveHint: false,
        openWorldHint: true,
      },
    })),
  }));
  server.setRequestHandler(sdk.CallToolRequestSchema, (request, extra) =>
    callTool(request.params.name, request.params.arguments, {
      tools,
      opts,
      session,
      signal: AbortSignal.any([ctx.signal, extra.signal]),
      log,
    }),
  );
  // A message that is not JSON-RPC, a reply that cannot be sent: said, and the server goes on.
  server.onerror = (error) => log(`store mcp: ${error.message}`);

  const transport = new sdk.StdioServerTransport(ctx.io.stdin, protocolOut(ctx.io));
  // The client closing stdin, Ctrl-C or SIGTERM (ctx.signal) end the server: exit 0.
  const ended = new Promise<void>((resolve) => {
    server.onclose = resolve;
    ctx.io.stdin.once('end', resolve);
    ctx.io.stdin.once('close', resolve);
    if (ctx.signal.aborted) resolve();
    else ctx.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  await server.connect(transport);
  const writes = tools.filter((tool) => tool.access === 'write').map((tool) => tool.name);
  log(
    `store mcp: serving profile ${profile.name} (${profile.baseUrl}) on stdin and stdout; ${
      opts.allowWrites
        ? `writes allowed (${writes.join(', ')})`
        : `read-only (--allow-writes offers ${writes.join(', ')})`
    }`,
  );
  await ended;
  await server.close();
}

/** The protocol's stdout: written through the program's own stream (write errors kept). */
function protocolOut(io: IOStreams): Writable {
  const out = {
    write: (chunk: string) => {
      io.out(chunk);
      return true;
    },
    once: () => out,
    on: () => out,
  };
  return out as unknown as Writable;
}

interface CallDeps {
  tools: readonly Tool[];
  opts: McpOptions;
  session: McpSession;
  signal: AbortSignal;
  log: (line: string) => void;
}

/** One tool call; whatever fails is a tool error, never a failure of the server. */
async function callTool(
  name: string,
  args: Record<string, unknown> | undefined,
  deps: CallDeps,
): Promise<ToolResult> {
  const { tools, opts, session, signal, log } = deps;
  const tool = tools.find((candidate) => candidate.name === name);
  if (!tool) {
    const hint = didYouMean(
      name,
      tools.map((candidate) => candidate.name),
    );
    return failure(new FlagError(`no tool "${name}"${hint}`), '', undefined);
  }
  if (tool.access === 'write' && !opts.allowWrites) {
    const refused = new CliError(
      `${name} changes data: it is offered only by \`store mcp --allow-writes\`; nothing was sent`,
      ExitCode.usage,
      'writes_not_allowed',
    );
    return failure(refused, '', undefined);
  }
  const warnings: string[] = [];
  const io = toolIO((text) => {
    for (const line of text.split('\n').filter((part) => part !== '')) {
      log(`${name}: ${line}`);
      if (line.startsWith('warning:')) warnings.push(line);
    }
  });
  const profile = session.profile.name;
  try {
    await tool.source.invoke(commanderValues(tool, args), session.callContext(io, signal));
    log(`${name}: ok`);
    return success(io.output(), profile, tool.access === 'write', warnings);
  } catch (error) {
    const result = failure(error, io.output(), profile);
    const { code, status } = result.structuredContent.error as { code: string; status: unknown };
    log(`${name}: failed: ${code}${status === null ? '' : ` (HTTP ${status})`}`);
    return result;
  }
}
