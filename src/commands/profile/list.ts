import type { StoredProfile } from '../../config/file.js';
import { urlOverrideNotes } from '../../config/profile-hints.js';
import {
  BUILTIN_PROFILES,
  listedSettings,
  profileExists,
  profileNames,
  profileSourceName,
  selectedProfile,
  storedProfile,
} from '../../config/profiles.js';
import { quote } from '../../config/quote.js';
import type { Context } from '../../context.js';
import { type Column, renderRows } from '../../render/output.js';
import * as z from '../../zod.js';
import { defineCommand } from '../define.js';
import { didYouMean } from '../help/suggest.js';

function hasStoredKey(stored: StoredProfile | undefined): boolean {
  return stored?.apiKey !== undefined || stored?.keyStorage === 'keyring';
}

/** What `profile list` shows of a profile: never the key itself. */
const ProfileRow = z.object({
  name: z.string(),
  baseUrl: z.string(),
  messagesUrl: z.string(),
  current: z.boolean(),
  /** Whether a key is stored for this profile (in the keyring or config.json). */
  hasKey: z.boolean(),
});
export type ProfileRow = z.infer<typeof ProfileRow>;

function keyLabel(row: ProfileRow): string {
  if (row.hasKey) return 'stored';
  return BUILTIN_PROFILES[row.name]?.apiKey ? 'built-in' : 'none';
}

const MESSAGES_URL: Column<ProfileRow> = {
  header: 'MESSAGES URL',
  value: (p) => p.messagesUrl,
  cutMiddle: true,
};

const COLUMNS: Column<ProfileRow>[] = [
  { header: 'CURRENT', value: (p) => (p.current ? '*' : '') },
  { header: 'NAME', value: (p) => p.name },
  // Cut in the middle: profiles on one host often differ only by port or path.
  { header: 'BASE URL', value: (p) => p.baseUrl, cutMiddle: true },
  MESSAGES_URL,
  { header: 'KEY', value: keyLabel },
];

export const command = defineCommand({
  name: 'list',
  description: 'List profiles; * marks the one in use',
  output: { shape: 'list', fields: ProfileRow },
  examples: ['store profile list', 'store profile list --json'],
  run,
});

export async function run(_opts: object, ctx: Context): Promise<void> {
  const data = (await ctx.config()).read();
  const { name: current, source } = selectedProfile(data, ctx.env, ctx.options.profile);
  // Every other command refuses a profile in use that does not exist; the list still shows
  // what there is, and says so (no line is marked current).
  if (!profileExists(data, current)) {
    const via = profileSourceName(source);
    ctx.warn(
      `warning: the profile in use, ${quote(current)}${via ? ` (set in ${via})` : ''}, does not exist${didYouMean(current, profileNames(data))}; commands that use it will fail`,
    );
  }
  const rows = profileNames(data).map((name): ProfileRow => {
    const settings = listedSettings(data, ctx.env, name);
    return {
      name,
      baseUrl: settings.baseUrl,
      messagesUrl: settings.messagesUrl,
      current: name === current,
      hasKey: hasStoredKey(storedProfile(data, name)),
    };
  });
  // On a terminal, a column that says nothing more than BASE URL leaves its room to the URLs
  // (tab-separated rows and JSON keep every column, for scripts).
  const sameUrls = rows.every((row) => row.messagesUrl === row.baseUrl);
  const columns =
    ctx.io.stdoutIsTTY && sameUrls ? COLUMNS.filter((c) => c !== MESSAGES_URL) : COLUMNS;
  await renderRows(ctx.io, rows, columns, ctx.options);
  // The list shows the profiles' own URLs (as `-p` reaches them): a variable that sends every
  // command elsewhere is said.
  for (const note of urlOverrideNotes(ctx.env)) ctx.warn(note);
}
