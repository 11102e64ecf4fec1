import { baseUrlWarnings, parseBaseUrl } from '../../api/urls.js';
import {
  checkProfileName,
  isBuiltin,
  profileSettings,
  storedProfile,
} from '../../config/profiles.js';
import type { Context } from '../../context.js';
import { FlagError } from '../../errors.js';
import * as z from '../../zod.js';
import { defineCommand } from '../define.js';
import { reportDone } from '../done.js';

export interface SetOptions {
  name: string;
  baseUrl?: string;
  messagesUrl?: string;
}

export const command = defineCommand({
  name: 'set',
  description: 'Create or update a profile',
  args: {
    name: { name: '<name>', description: 'the profile', schema: z.string() },
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
  output: {
    shape: 'object',
    fields: z.object({
      profile: z.string(),
      created: z.boolean(),
      baseUrl: z.string(),
      messagesUrl: z.string(),
    }),
  },
  examples: [
    'store profile set eu --base-url https://eu.animal-store.example/v1',
    'store profile set local --base-url http://localhost:8080/v1',
  ],
  check: (opts): SetOptions => {
    checkProfileName(opts.name);
    return opts;
  },
  run,
});

export async function run(opts: SetOptions, ctx: Context): Promise<void> {
  const urls = [
    ['--base-url', opts.baseUrl],
    ['--messages-url', opts.messagesUrl],
  ] as const;
  const warnings: string[] = [];
  for (const [flag, value] of urls) {
    if (value !== undefined) warnings.push(...baseUrlWarnings(parseBaseUrl(value, flag), flag));
  }
  const config = await ctx.config();
  const exists = isBuiltin(opts.name) || storedProfile(config.read(), opts.name) !== undefined;
  if (!exists && opts.baseUrl === undefined) {
    throw new FlagError(`--base-url is required to create profile "${opts.name}"`);
  }
  for (const warning of warnings) ctx.warn(warning);
  const after = await config.update((data) => {
    data.profiles ??= {};
    const profile = { ...data.profiles[opts.name] };
    if (opts.baseUrl !== undefined) profile.baseUrl = opts.baseUrl;
    if (opts.messagesUrl !== undefined) profile.messagesUrl = opts.messagesUrl;
    data.profiles[opts.name] = profile;
  });
  const { baseUrl, messagesUrl } = profileSettings(after, opts.name);
  await reportDone(ctx, `${exists ? 'Updated' : 'Created'} profile ${opts.name}`, {
    profile: opts.name,
    created: !exists,
    baseUrl,
    messagesUrl,
  });
}
