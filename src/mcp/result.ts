// What a tool call answers: the command's `--json` output, or its failure as the CLI would
// report it (the service's code, message and status, and the exit code's meaning).
import {
  asCliError,
  CliError,
  type ErrorReport,
  ExitCode,
  errorLines,
  toReport,
  withHint,
} from '../errors.js';
import { parseJson } from '../json.js';
import { EXIT_CODE_TABLE } from '../reference/exit-codes.js';

export interface ToolResult {
  [key: string]: unknown;
  content: { type: 'text'; text: string }[];
  structuredContent: Record<string, unknown>;
  isError?: boolean;
}

/**
 * The command's output: as text, the `--json` output itself (every int64 digit for digit);
 * structured, `{ profile, data }` with data the same JSON, but for numbers a double cannot hold
 * exactly (ids beyond 2^53), which are strings of their digits: a client's JSON parser keeps
 * those exactly. A write also says, as text, which profile it wrote to.
 */
export function success(
  output: string,
  profile: string,
  writes: boolean,
  warnings: readonly string[],
): ToolResult {
  const text = output.trimEnd();
  const content: ToolResult['content'] = [{ type: 'text', text }];
  if (writes) content.push({ type: 'text', text: `written to profile ${profile}` });
  for (const warning of warnings) content.push({ type: 'text', text: warning });
  return { content, structuredContent: { profile, data: exactForJs(asJson(text)) } };
}

/** The CLI's --json error (code, message, status, hint), and the exit code it would end with. */
export interface ToolErrorReport extends ErrorReport {
  exitCode: number;
  /** What the exit code means (`store help exit-codes`). */
  meaning: string;
}

/** ToolErrorReport as JSON Schema: a tool's outputSchema allows it (the SDK's client checks an
 * error's structuredContent too). */
export const ERROR_REPORT_SCHEMA = {
  type: 'object',
  properties: {
    code: { type: 'string' },
    message: { type: 'string' },
    status: { type: ['integer', 'null'] },
    hint: { type: 'string' },
    exitCode: { type: 'integer' },
    meaning: { type: 'string' },
  },
  required: ['code', 'message', 'status', 'exitCode', 'meaning'],
};

/** A failure as a tool error; what the command printed before it (auth_status's facts) too. */
export function failure(error: unknown, output: string, profile: string | undefined): ToolResult {
  const cli = asCliError(error);
  const meaning = EXIT_CODE_TABLE.find((entry) => entry.code === cli.exitCode)?.meaning ?? '';
  const report: ToolErrorReport = { ...toReport(cli), exitCode: cli.exitCode, meaning };
  const text = output.trimEnd();
  return {
    isError: true,
    content: [
      { type: 'text', text: `${errorLines(cli)}exit code ${cli.exitCode}: ${meaning}` },
      ...(text === '' ? [] : [{ type: 'text' as const, text }]),
    ],
    structuredContent: {
      ...(profile === undefined ? {} : { profile }),
      error: report,
      ...(text === '' ? {} : { data: exactForJs(asJson(text)) }),
    },
  };
}

/**
 * The most bytes the answer to a call may take as a message, its newline included. The SDK's
 * stdio client drops the whole session on a line over 10 MiB (counting what it has read of the
 * next message too): 8 MiB stays clear of that.
 */
export const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;

/** The bytes of the message answering request `id` with `result`, as the SDK writes it. */
function messageBytes(result: ToolResult, id: string | number): number {
  return Buffer.byteLength(JSON.stringify({ result, jsonrpc: '2.0', id })) + 1;
}

/**
 * `result`, or when its message would be over MAX_MESSAGE_BYTES, a tool error saying so and
 * how to ask for less: `params` are the tool's arguments, `command` what runs it in a terminal
 * (none for a tool that does not exist).
 */
export function fitting(
  result: ToolResult,
  id: string | number,
  params: readonly string[],
  command: string | undefined,
): ToolResult {
  const bytes = messageBytes(result, id);
  if (bytes <= MAX_MESSAGE_BYTES) return result;
  const error = new CliError(
    `the result is too large to send: ${bytes} bytes as a message, over the ${MAX_MESSAGE_BYTES} (${MAX_MESSAGE_BYTES / 1024 / 1024} MiB) one may take`,
    ExitCode.failure,
    'result_too_large',
  );
  const ways = [
    ...(params.length > 0 ? [`ask for less (${params.join(', ')})`] : []),
    ...(command ? [`run \`${command}\` in a terminal, where there is no such limit`] : []),
  ];
  withHint(error, ways.join(', or '));
  return failure(error, '', result.structuredContent.profile as string | undefined);
}

/** The output as JSON when it is (`--json`, a JSON body from api_get), else as its text. */
function asJson(text: string): unknown {
  if (text === '') return null;
  try {
    return parseJson(text);
  } catch {
    return text;
  }
}

/** `value` with every number a double cannot hold exactly (parseJson's BigInt and raw JSON
 * values) as the string of its digits. */
function exactForJs(value: unknown): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (value === null || typeof value !== 'object') return value;
  if (JSON.isRawJSON(value)) return (value as { rawJSON: string }).rawJSON;
  if (Array.isArray(value)) return value.map(exactForJs);
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, exactForJs(item)]));
}
