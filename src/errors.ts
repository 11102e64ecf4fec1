import { cutText, JsonDepthError } from './json.js';
import { ExitCode } from './reference/exit-codes.js';
import { sanitize } from './render/sanitize.js';

// Every failure the CLI reports is one of these. Commands throw them; main() turns them
// into one stderr line (or one JSON line under --json) and the contract's exit code.

export { ExitCode } from './reference/exit-codes.js';

export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: ExitCode,
    /** Machine-readable code, shown under --json. */
    readonly code: string,
    /** The HTTP status when the failure came from a response. */
    readonly status: number | null = null,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }

  /** What store adds to the message (how to log in, that the server may have acted, how many
   * attempts were made): its own `hint:` line, or the `hint` field under --json, so that a
   * service's message is shown as the service wrote it. */
  hint: string | undefined;

  // Spelled out in each class: the bundle's class names are minified (scripts/bundle.js).
  override name = 'CliError';
}

/** Usage errors: bad flag, argument or configuration request. Nothing was sent. */
export class FlagError extends CliError {
  override name = 'FlagError';

  constructor(message: string) {
    super(message, ExitCode.usage, 'usage_error');
  }
}

/** No key, or a key the API rejected. */
export class AuthError extends CliError {
  override name = 'AuthError';

  constructor(message: string, status: number | null = null) {
    super(message, ExitCode.auth, 'unauthenticated', status);
  }
}

/** An Error body (or a status without one) from the service. */
export class ApiError extends CliError {
  override name = 'ApiError';

  constructor(message: string, code: string, status: number) {
    super(message, exitCodeForStatus(status), code, status);
  }
}

/** The service could not be reached or did not answer in time. */
export class NetworkError extends CliError {
  override name = 'NetworkError';

  constructor(
    message: string,
    code = 'network_error',
    options?: ErrorOptions & {
      /** No connection could be made at all (refused, no such host): later requests would fail too. */
      unreachable?: boolean;
      /** The request may have reached the server: it timed out, or the connection broke, once
       * it could have been sent (not a refused connection, a TLS or proxy failure). */
      maybeDelivered?: boolean;
      /** A passing trouble before the request left (a proxy's 429 or 5xx to CONNECT): worth
       * another attempt, whatever the method. */
      passing?: boolean;
      /** The status a proxy answered CONNECT with. */
      proxyStatus?: number;
    },
  ) {
    super(message, ExitCode.network, code, null, options);
    this.unreachable = options?.unreachable ?? false;
    this.maybeDelivered = options?.maybeDelivered ?? false;
    this.passing = options?.passing ?? false;
    this.proxyStatus = options?.proxyStatus;
  }

  readonly unreachable: boolean;
  readonly maybeDelivered: boolean;
  readonly passing: boolean;
  readonly proxyStatus: number | undefined;
}

/** Server errors that say the request was not acted on: not implemented (501), unavailable
 * (503: the server could not take it), an HTTP version refused (505). Any other (500, a
 * gateway's 502 and 504, codes of its own) may come after the server acted. */
const NOT_ACTED_STATUSES = new Set([501, 503, 505]);

function serverMayHaveActed(status: number): boolean {
  return status >= 500 && status < 600 && !NOT_ACTED_STATUSES.has(status);
}

/**
 * Whether the server may have acted on a request that failed: it timed out or was cut off once
 * it could have been sent, a server error that may follow its acting (500, a gateway's 502 or
 * 504: serverMayHaveActed), a success came back that could
 * not be read (too large, the wrong shape), or an answer whose status could not be read. After
 * a POST, what it creates may exist: sending it again could make it twice. Not after a refused
 * connection, a TLS or proxy failure: nothing reached the server.
 */
export function mayHaveActed(error: unknown): boolean {
  if (error instanceof NetworkError) return error.maybeDelivered;
  if (error instanceof CancelledError) return error.inFlight;
  if (error instanceof ApiError) return serverMayHaveActed(error.status as number);
  if (error instanceof ResponseError && error.answerUnread) return true;
  // 303 See Other: the server acted and points at the result.
  if (error instanceof ResponseError && error.status === 303) return true;
  // A success, or a gateway's answer, whose body could not be used.
  const status = error instanceof ResponseError ? error.status : null;
  return status !== null && ((status >= 200 && status < 300) || serverMayHaveActed(status));
}

/** `error` with `text` added to its hint (after any it has). */
export function withHint<E extends CliError>(error: E, text: string | undefined): E {
  if (text) error.hint = error.hint ? `${error.hint}; ${text}` : text;
  return error;
}

/** `error`, its hint saying `note` when the server may have acted (mayHaveActed). */
export function notingMaybeActed(error: unknown, note: string): unknown {
  if (error instanceof CliError && mayHaveActed(error)) withHint(error, note);
  if (error instanceof CancelledError && error.inFlight) error.note = note;
  return error;
}

/** A response the client cannot use: wrong shape, redirect, too large. */
export class ResponseError extends CliError {
  override name = 'ResponseError';
  /** An answer came whose status could not be read (headers too large): it may be a success. */
  readonly answerUnread: boolean;

  constructor(
    message: string,
    status: number | null,
    code = 'unexpected_response',
    options: { answerUnread?: boolean } = {},
  ) {
    super(message, ExitCode.failure, code, status);
    this.answerUnread = options.answerUnread ?? false;
  }
}

/** The config file cannot be read or written. */
export class ConfigError extends CliError {
  override name = 'ConfigError';

  constructor(message: string, options?: ErrorOptions) {
    super(message, ExitCode.failure, 'config_error', null, options);
  }
}

export class CancelledError extends CliError {
  override name = 'CancelledError';

  constructor(options: { inFlight?: boolean } = {}) {
    super('interrupted', ExitCode.interrupted, 'interrupted');
    this.inFlight = options.inFlight ?? false;
  }

  /** Ctrl-C came while a request was on its way or awaited (not during a wait to retry). */
  readonly inFlight: boolean;
  /** What the interruption may have left behind: said on stderr, where Ctrl-C says nothing. */
  note: string | undefined;
}

/** Ends with an exit code after the command already reported its failures itself. */
export class SilentExit extends CliError {
  override name = 'SilentExit';

  constructor(exitCode: ExitCode) {
    super('', exitCode, 'silent_exit');
  }
}

function exitCodeForStatus(status: number): ExitCode {
  if (status === 401 || status === 403) return ExitCode.auth;
  if (status === 404) return ExitCode.notFound;
  // 5xx only: a status of 600 or more is no HTTP status at all, an unexpected answer (1).
  if (status === 429 || (status >= 500 && status < 600)) return ExitCode.unavailable;
  if (status >= 400 && status < 500) return ExitCode.rejected;
  return ExitCode.failure;
}

export interface ErrorReport {
  code: string;
  message: string;
  status: number | null;
  hint?: string;
}

/** The JSON form: `hint` only when there is one. */
export function toReport(error: CliError): ErrorReport {
  const report: ErrorReport = { code: error.code, message: error.message, status: error.status };
  if (error.hint) report.hint = error.hint;
  return report;
}

/** The text form's lines: `error: …`, and `hint: …` when there is one. */
export function errorLines(error: CliError): string {
  const hint = error.hint ? `hint: ${sanitize(error.hint)}\n` : '';
  return `error: ${describeError(error)}\n${hint}`;
}

/** The one-line, human form: `<message> (<code>, HTTP <status>)` for service errors. The
 * message and code may come from the server: they are shown as text, never as escapes, and
 * cut when long (the JSON form keeps them whole). */
export function describeError(error: CliError): string {
  return sanitize(
    error instanceof ApiError
      ? `${shorten(error.message)} (${shorten(error.code)}, HTTP ${error.status})`
      : error.message,
  );
}

/** How much of a server's text a line for people shows. */
const MAX_MESSAGE_CHARS = 1000;

/** A server's text as one readable line: a 20 MB message is cut, saying how much was left. */
export function shorten(text: string): string {
  if (text.length <= MAX_MESSAGE_CHARS) return text;
  const kept = cutText(text, MAX_MESSAGE_CHARS);
  return `${kept}… (${text.length - kept.length} more characters)`;
}

/** Any error as the CliError it is reported as: data nested too deep to write (a server's
 * 20,000 levels) is a failure, anything else not a CliError a bug (`internal error`). */
export function asCliError(error: unknown): CliError {
  if (error instanceof CliError) return error;
  if (error instanceof JsonDepthError) {
    return new CliError(error.message, ExitCode.failure, 'too_deep');
  }
  return new CliError(`internal error: ${messageOf(error)}`, ExitCode.failure, 'internal_error');
}

/** What was thrown, as text: an Error's message, anything else as a string. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
