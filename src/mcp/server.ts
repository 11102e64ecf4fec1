// `store mcp`: the Model Context Protocol over stdio. stdout carries the protocol and nothing
// else; what the server has to say goes to stderr. Each tool call runs its command as the CLI
// would under --json (src/mcp/tools.ts), with what the server settled at its start
// (src/mcp/session.ts): the profile, its key, one set of connections.
import type { Writable } from 'node:stream';
import { didYouMean } from '../commands/help/suggest.js';
import type { Context } from '../context.js';
import { asCliError, CliError, ExitCode, mayHaveActed, SilentExit, shorten } from '../errors.js';
import type { IOStreams } from '../io.js';
import { sanitize } from '../render/sanitize.js';
import { version } from '../version.js';
import { failure, fitting, success, type ToolErrorReport, type ToolResult } from './result.js';
import { type McpSession, openSession } from './session.js';
import { toolIO } from './tool-io.js';
import { commanderValues, type JsonSchemaOf, type Tool, toolsOf } from './tools.js';

export interface McpOptions {
  allowWrites: boolean;
}

/** How the server came to end: the client closed stdin, Ctrl-C or SIGTERM, a line longer
 * than the SDK reads, the SDK's transport closed. */
type End = 'stdin closed' | 'signal' | 'line too long' | 'closed';

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
  // The calls in progress, and what ends those still running when the server ends.
  const calls = new Set<Promise<ToolResult>>();
  const stopping = new AbortController();
  server.setRequestHandler(sdk.CallToolRequestSchema, (request, extra) => {
    const { name } = request.params;
    const tool = tools.find((candidate) => candidate.name === name);
    // A tool the server does not have is the protocol's error (-32602, Invalid params, as the
    // specification has it), not a tool's failure: the list never offered it.
    if (!tool) {
      log(`${name}: no such tool`);
      const meant = didYouMean(
        name,
        tools.map((candidate) => candidate.name),
      );
      // An Error with the code the SDK answers with (its McpError would put "MCP error -32602: "
      // in the message as well, and the client's own McpError adds it again).
      throw Object.assign(new Error(`no tool "${name}"${meant}`), {
        code: sdk.ErrorCode.InvalidParams,
      });
    }
    const call = callTool(tool, request.params.arguments, {
      opts,
      session,
      id: extra.requestId,
      // Ctrl-C, the client's notifications/cancelled, the server ending.
      signal: AbortSignal.any([ctx.signal, extra.signal, stopping.signal]),
      log,
    });
    calls.add(call);
    void call.finally(() => calls.delete(call));
    return call;
  });

  const maxLine = sdk.STDIO_DEFAULT_MAX_BUFFER_SIZE;
  let end: (how: End) => void = () => {};
  const ended = new Promise<End>((resolve) => {
    end = resolve;
  });
  // A message that is not JSON-RPC, a reply that cannot be sent: said, and the server goes on.
  // (A line too long is said once, in store's words, below.)
  let tooLong = false;
  server.onerror = (error) => {
    if (!tooLong) log(`store mcp: ${error.message}`);
  };

  const transport = new sdk.StdioServerTransport(ctx.io.stdin, protocolOut(ctx.io), {
    maxBufferSize: maxLine,
  });
  server.onclose = () => end('closed');
  ctx.io.stdin.once('end', () => end('stdin closed'));
  ctx.io.stdin.once('close', () => end('stdin closed'));
  if (ctx.signal.aborted) end('signal');
  else ctx.signal.addEventListener('abort', () => end('signal'), { once: true });

  await server.connect(transport);
  // A line longer than the SDK reads: it stops reading, and the server cannot go on. Told by
  // the SDK's own rule (what it holds of a line, and the piece just read, over maxLine),
  // counted here before its reader sees the piece (and not before it reads: stdin flows now).
  let pending = 0;
  const measure = (piece: Buffer) => {
    if (pending + piece.length > maxLine) {
      tooLong = true;
      end('line too long');
    }
    const newline = piece.lastIndexOf(0x0a);
    pending = newline === -1 ? pending + piece.length : piece.length - newline - 1;
  };
  ctx.io.stdin.prependListener('data', measure);
  const writes = tools.filter((tool) => tool.access === 'write').map((tool) => tool.name);
  log(
    `store mcp: serving profile ${profile.name} (${profile.baseUrl}) on stdin and stdout; ${
      opts.allowWrites
        ? `writes allowed (${writes.join(', ')})`
        : `read-only (--allow-writes offers ${writes.join(', ')})`
    }`,
  );
  const how = await ended;
  // The SDK's reader pauses stdin when it closes, unless another reader is there: this one
  // goes now, and stdin is paused if the SDK's already went (a line too long), so that
  // nothing holds the process.
  ctx.io.stdin.off('data', measure);
  if (ctx.io.stdin.listenerCount('data') === 0) ctx.io.stdin.pause();
  if (how === 'stdin closed') {
    // Requests read before the end of stdin are answered (a client may pipe them and close),
    // within a request's time limit; past it, they are interrupted, and answered so.
    await finishing(calls, ctx.options.timeoutMs, ctx.signal);
  } else {
    // Calls in progress are interrupted (and logged), unanswered.
    await server.close();
  }
  stopping.abort();
  await Promise.allSettled(calls);
  // The SDK writes each answer once its handler's promise has settled.
  await new Promise((resolve) => setImmediate(resolve));
  await server.close();
  if (how === 'line too long') {
    log(
      `store mcp: a message from the client was longer than ${maxLine / 1024 / 1024} MiB, the most a line of the protocol may be; stopped`,
    );
    throw new SilentExit(ExitCode.failure);
  }
}

/** Until every call in `calls` has settled, `ms` have passed, or `signal` fires. */
async function finishing(
  calls: ReadonlySet<Promise<unknown>>,
  ms: number,
  signal: AbortSignal,
): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  let onAbort = () => {};
  const limit = new Promise<void>((resolve) => {
    timer = setTimeout(resolve, ms);
    onAbort = resolve;
    signal.addEventListener('abort', onAbort, { once: true });
  });
  await Promise.race([Promise.allSettled(calls), limit]);
  clearTimeout(timer);
  signal.removeEventListener('abort', onAbort);
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
  opts: McpOptions;
  session: McpSession;
  /** The request's JSON-RPC id: its answer's size depends on it. */
  id: string | number;
  signal: AbortSignal;
  log: (line: string) => void;
}

/** One tool call; whatever fails is a tool error, never a failure of the server. */
async function callTool(
  tool: Tool,
  args: Record<string, unknown> | undefined,
  deps: CallDeps,
): Promise<ToolResult> {
  const { id, log } = deps;
  const { result, fate } = await run(tool, args, deps);
  const sent = fitting(result, id, [...tool.params.keys()], tool.runs);
  log(`${tool.name}: ${outcome(sent, sent === result ? fate : '')}`);
  return sent;
}

/** The server's log line for a result sent (`ok`, `failed: pet_not_found (HTTP 404)`), and
 * `fate`. The server's code is whole in the result; a log line is for people, and kept short. */
function outcome(result: ToolResult, fate: string): string {
  const error = result.structuredContent.error as ToolErrorReport | undefined;
  if (!result.isError || !error) return 'ok';
  const status = error.status === null ? '' : ` (HTTP ${error.status})`;
  return `failed: ${shorten(error.code)}${status}${fate}`;
}

/** The tool's command, run with the call's arguments: its result, or its failure, and what the
 * log line adds to it (a write that may have been made says so). */
async function run(
  tool: Tool,
  args: Record<string, unknown> | undefined,
  deps: CallDeps,
): Promise<{ result: ToolResult; fate: string }> {
  const { opts, session, signal, log } = deps;
  const { name } = tool;
  if (tool.access === 'write' && !opts.allowWrites) {
    const refused = new CliError(
      `${name} changes data: it is offered only by \`store mcp --allow-writes\`; nothing was sent`,
      ExitCode.usage,
      'writes_not_allowed',
    );
    return { result: failure(refused, '', undefined), fate: '' };
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
    return { result: success(io.output(), profile, tool.access === 'write', warnings), fate: '' };
  } catch (error) {
    const cli = asCliError(error);
    // A write whose answer never came may have been made: the log says so, as the CLI does.
    const fate = tool.access === 'write' && mayHaveActed(cli) && cli.hint ? `; ${cli.hint}` : '';
    return { result: failure(cli, io.output(), profile), fate };
  }
}
