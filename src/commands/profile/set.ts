import { isLoopbackHost, parseBaseUrl } from '../../api/urls.js';
import { isBuiltin, storedProfile } from '../../config/profiles.js';
import type { Context } from '../../context.js';
import { FlagError } from '../../errors.js';
import * as z from '../../zod.js';
import { defineCommand } from '../define.js';

export interface SetOptions {
  name: string;
  baseUrl?: string;
  messagesUrl?: string;
}

/** Letters, digits, '-', '_' and '.': names that are safe in a shell and in completion. */
export const PROFILE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

export const command = defineCommand({
  name: 'set',
  description: 'Create or update a profile',
  args: {
    name: {
      name: '<name>',
      description: 'the profile',
      schema: z
        .string()
        .check(
          z.regex(
            PROFILE_NAME,
            'the profile name must be 1-64 letters, digits, ".", "_" or "-", starting with a letter or digit',
          ),
        ),
    },
  },
  flags: {
    baseUrl: {
      flags: '--base-url <url>',
      description: 'base URL of the API, including /v1',
      schema: z.optional(z.string()),
    },
    messagesUrl: {
      flags: '--messages-url <url>',
      description: 'base URL of the messaging operation (default: the base URL)',
      schema: z.optional(z.string()),
    },
  },
  examples: [
    'store profile set eu --base-url https://eu.animal-store.example/v1',
    'store profile set local --base-url http://localhost:8080/v1',
  ],
  run,
});

export async function run(opts: SetOptions, ctx: Context): Promise<void> {
  const urls = [
    ['--base-url', opts.baseUrl],
    ['--messages-url', opts.messagesUrl],
  ] as const;
  const warnings: string[] = [];
  for (const [flag, value] of urls) {
    if (value === undefined) continue;
    const url = parseBaseUrl(value, flag);
    if (url.protocol === 'http:' && !isLoopbackHost(url.hostname)) {
      warnings.push(
        `warning: ${flag} uses plain http:// to a host that is not loopback; store will refuse to send the API key there`,
      );
    }
  }
  const config = await ctx.config();
  const exists = isBuiltin(opts.name) || storedProfile(config.read(), opts.name) !== undefined;
  if (!exists && opts.baseUrl === undefined) {
    throw new FlagError(`--base-url is required to create profile "${opts.name}"`);
  }
  for (const warning of warnings) ctx.warn(warning);
  await config.update((data) => {
    data.profiles ??= {};
    const profile = { ...data.profiles[opts.name] };
    if (opts.baseUrl !== undefined) profile.baseUrl = opts.baseUrl;
    if (opts.messagesUrl !== undefined) profile.messagesUrl = opts.messagesUrl;
    data.profiles[opts.name] = profile;
  });
  ctx.io.err(`${exists ? 'Updated' : 'Created'} profile ${opts.name}\n`);
}
