// What `store mcp` settles when it starts and keeps for its whole life: the profile (its URLs,
// where its key comes from), the key, read once, and one transport whose connections every
// call reuses. `store profile use` or `auth login` run elsewhere meanwhile change nothing here.
// Each call still gets a context of its own: its output, its log, its signal.
import type { Transport } from '../api/transport.js';
import type { ResolvedProfile } from '../config/profiles.js';
import {
  type Context,
  createContext,
  type GlobalOptions,
  type Session,
  urlSources,
} from '../context.js';
import type { IOStreams } from '../io.js';

export interface McpSession {
  readonly profile: ResolvedProfile;
  /** A tool call's context: its own streams and signal; the session's profile, key and
   * connections. */
  callContext(io: IOStreams, signal: AbortSignal): Context;
  /** Ends the connections kept for the calls. */
  close(): Promise<void>;
}

/** Rejects (exit 2) when the profile does not exist: nothing is served then. */
export async function openSession(ctx: Context): Promise<McpSession> {
  const profile = await ctx.profile();
  // URLs every client of the profile refuses (not http(s), a query, a password in them) are
  // refused now, as an unknown profile is: nothing is served, or logged.
  const { parseProfileUrls } = await import('../api/urls.js');
  parseProfileUrls(profile.baseUrl, profile.messagesUrl, urlSources(profile));
  const { Transport } = await import('../api/transport.js');
  const transport: Transport = new Transport({
    env: ctx.env,
    timeoutMs: ctx.options.timeoutMs,
    shared: true,
    many: true,
  });
  // The whole --json output: no fields chosen, no jq filter (store mcp refuses both itself).
  const options: GlobalOptions = {
    ...ctx.options,
    json: true,
    jsonFields: undefined,
    jq: undefined,
  };
  const settled: Session = { profile, transport };
  let key: Promise<string | undefined> | undefined;
  // Read on first need (auth_status runs without a key), with the server's signal: a call
  // cancelled does not end a read that others wait for. Read again after a failure (a keyring
  // that did not answer in time), not after a success.
  settled.apiKey = () => {
    if (key) return key;
    const reading = createContext(ctx.io, ctx.env, options, ctx.signal, {
      session: { profile, transport },
      keyring: ctx.keyring,
    }).apiKey();
    key = reading;
    reading.catch(() => {
      if (key === reading) key = undefined;
    });
    return reading;
  };
  return {
    profile,
    callContext: (io, signal) => createContext(io, ctx.env, options, signal, { session: settled }),
    close: () => transport.close(),
  };
}
