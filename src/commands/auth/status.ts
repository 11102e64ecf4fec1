import { listPets } from '../../api/pets.js';
import { type KeySource, maskKey } from '../../config/profiles.js';
import type { Context } from '../../context.js';
import { ApiError, AuthError } from '../../errors.js';
import { type Column, renderItem } from '../../render/output.js';
import { defineCommand } from '../define.js';

export interface AuthStatus {
  profile: string;
  baseUrl: string;
  keySource: KeySource;
  key: string;
}

const COLUMNS: Column<AuthStatus>[] = [
  { header: 'PROFILE', value: (s) => s.profile },
  { header: 'BASE URL', value: (s) => s.baseUrl },
  { header: 'KEY FROM', value: (s) => s.keySource },
  { header: 'KEY', value: (s) => s.key },
];

export const command = defineCommand({
  name: 'status',
  description: 'Show the profile, where its key comes from, and whether the API accepts it',
  examples: ['store auth status', 'store -p staging auth status --json'],
  run,
});

export async function run(_opts: object, ctx: Context): Promise<void> {
  const profile = await ctx.profile();
  const where = `profile ${profile.name} (${profile.baseUrl})`;
  if (!profile.apiKey) {
    throw new AuthError(`${where}: not logged in; run \`store auth login\` or set STORE_API_KEY`);
  }
  const key = maskKey(profile.apiKey);
  try {
    await listPets(await ctx.api(), { limit: 1 });
  } catch (error) {
    if (error instanceof ApiError && (error.status === 401 || error.status === 403)) {
      throw new AuthError(
        `${where}: the API rejected the key ${key} from ${profile.keySource} (HTTP ${error.status})`,
        error.status,
      );
    }
    throw error;
  }
  const status: AuthStatus = {
    profile: profile.name,
    baseUrl: profile.baseUrl,
    keySource: profile.keySource,
    key,
  };
  // Reaching here means the API accepted the key; failures exit 4 with stdout empty.
  await renderItem(ctx.io, status, COLUMNS, ctx.options);
}
