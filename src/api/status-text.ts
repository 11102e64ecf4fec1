// HTTP status phrases from node:http, taken with process.getBuiltinModule: an ES-module import
// of node:http builds its namespace, whose lazy getters load Node's own copy of undici.
import type { STATUS_CODES as StatusCodes } from 'node:http';

let codes: typeof StatusCodes | undefined;

export function statusText(status: number): string | undefined {
  codes ??= (process.getBuiltinModule('node:http') as typeof import('node:http')).STATUS_CODES;
  return codes[status];
}
