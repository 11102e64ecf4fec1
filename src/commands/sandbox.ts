// `store sandbox`: a verb-less command, so it sits beside the noun folders. It runs the
// reference server from src/sandbox/ until Ctrl-C or SIGTERM.
import { isLoopbackAddress } from '../api/urls.js';
import { resolveProfile } from '../config/profiles.js';
import { quote } from '../config/quote.js';
import type { Context } from '../context.js';
import { ConfigError, FlagError } from '../errors.js';
import * as z from '../zod.js';
import { defineCommand } from './define.js';
import { fileFlag, intFlag } from './flags.js';

export interface SandboxCommandOptions {
  port: number;
  host: string;
  apiKey: string;
  data?: string;
  seed?: number;
}

export const command = defineCommand({
  name: 'sandbox',
  description: 'Run a local reference server of the service (in memory unless --data)',
  flags: {
    port: {
      flags: '--port <port>',
      description: 'port to listen on, 0 for any free one',
      schema: z._default(intFlag('--port', 0, 65535), 4010),
      defaultText: '4010',
    },
    host: {
      flags: '--host <host>',
      description: 'address to listen on',
      schema: z._default(
        z.string().check(
          z.minLength(1, '--host must not be empty'),
          // A URL cannot name an address with a zone (`::1%lo`): the sandbox could not say
          // where it listens.
          z.refine(
            (host: string) => !host.includes('%'),
            '--host must be an address without an IPv6 zone (%…): fe80::1%eth0 cannot be put in a URL',
          ),
        ),
        '127.0.0.1',
      ),
      defaultText: '127.0.0.1',
    },
    apiKey: {
      flags: '--api-key <key>',
      description: 'the key clients must send',
      // The sandbox matches one word after `Bearer `, and a client sends only what a header
      // value may hold: a key with white space, a control character or a character beyond
      // Latin-1 would be accepted here and never sent or matched.
      schema: z._default(
        z
          .string()
          .check(
            z.minLength(1, '--api-key must not be empty'),
            z.regex(
              /^[\x21-\x7e\u0080-\u00ff]*$/,
              '--api-key must be one word of printable characters (no white space or control characters, nothing beyond Latin-1)',
            ),
          ),
        'sandbox',
      ),
      defaultText: 'sandbox',
    },
    data: fileFlag(
      '--data <file>',
      'keep the data in this SQLite database file (created if missing or empty)',
    ),
    seed: {
      flags: '--seed <n>',
      description: 'start with n sample animals when there are none',
      schema: z.optional(intFlag('--seed', 0, 100_000)),
    },
  },
  examples: [
    'store sandbox --seed 20',
    'store --profile sandbox pets list',
    'store sandbox --port 0 --data ./sandbox.db',
  ],
  run,
});

export async function run(opts: SandboxCommandOptions, ctx: Context): Promise<void> {
  const { io, signal } = ctx;
  // Loaded only here: no other command pays for the server.
  const { startSandbox, announceSandbox } = await import('../sandbox/server.js');
  let sandbox: Awaited<ReturnType<typeof startSandbox>>;
  try {
    sandbox = await startSandbox({
      port: opts.port,
      host: opts.host,
      apiKey: opts.apiKey,
      dataFile: opts.data,
      seed: opts.seed,
      log: (line) => io.err(`${line}\n`),
    });
  } catch (error) {
    throw listenError(error, opts);
  }
  try {
    if (!isLoopbackAddress(opts.host)) {
      ctx.warn(
        `warning: listening on ${opts.host}, which is not loopback: others can reach the sandbox`,
      );
    }
    io.out(`${sandbox.url}\n`);
    // Recorded in the config folder, so that `store -p sandbox` finds it on any port; the
    // ready line says what `-p sandbox` needs to reach it, from the config as it is then.
    const reaches = async () => {
      const profile = resolveProfile((await ctx.config()).read(), ctx.env, 'sandbox');
      return { baseUrl: profile.baseUrl, apiKey: profile.apiKey };
    };
    const announcement = await announceSandbox(
      ctx.env,
      sandbox.url,
      opts.apiKey,
      ctx.warn,
      reaches,
    );
    io.err(`Sandbox listening at ${sandbox.url} with API key "${opts.apiKey}"; Ctrl-C stops it\n`);
    io.err(`${announcement.readyLine}\n`);
    await new Promise<void>((resolve) => {
      if (signal.aborted) resolve();
      else signal.addEventListener('abort', () => resolve(), { once: true });
    });
    await announcement.withdraw();
  } finally {
    // Whatever failed after the start: the server must not go on with the command ended.
    await sandbox.close();
  }
  io.err('Sandbox stopped\n');
}

/** Why the server could not start, said as the flag to change (exit 2) where it is one. */
function listenError(error: unknown, opts: SandboxCommandOptions): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  switch (code) {
    case 'EADDRINUSE':
      return new FlagError(
        `port ${opts.port} on ${opts.host} is already in use; choose another with --port`,
      );
    case 'EACCES':
      return new FlagError(
        `no permission to listen on port ${opts.port}; choose one above 1023 with --port`,
      );
    // A name that does not resolve, an address of another machine or family.
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_FAIL':
    case 'EADDRNOTAVAIL':
    case 'EAFNOSUPPORT':
      return new FlagError(
        `cannot listen on --host ${quote(opts.host)}: not an address of this machine (${code})`,
      );
    case 'EDATA':
      return new ConfigError((error as Error).message);
    default:
      return error;
  }
}
