import { sendMessage } from '../../api/messages.js';
import type { Context } from '../../context.js';
import { FlagError, notingMaybeActed } from '../../errors.js';
import { type Column, renderItem } from '../../render/output.js';
import { Message } from '../../schemas.js';
import * as z from '../../zod.js';
import { defineCommand } from '../define.js';
import { hasUnreadableBytes, notUtf8 } from '../flags.js';

export interface SendOptions {
  /** The text, or undefined / '-' to read it from stdin. */
  text?: string;
}

const MESSAGE_COLUMNS: Column<Message>[] = [
  { header: 'ID', value: (m) => m.id, fixed: true },
  { header: 'STATUS', value: (m) => m.status },
  { header: 'CREATED AT', value: (m) => m.createdAt },
];

export const command = defineCommand({
  name: 'send',
  description: 'Send a message (the text from the argument, or from stdin)',
  args: {
    text: {
      name: '[text]',
      description: 'the message; - or nothing reads it from stdin',
      mcpDescription: 'the message',
      schema: z.optional(z.string()),
    },
  },
  // A tool call has no stdin: the text is its argument.
  mcp: { access: 'write', description: 'Send a message', required: ['text'] },
  output: { shape: 'object', fields: Message },
  network: true,
  examples: [
    'store messages send "Hello from the store"',
    'echo "Restock done" | store messages send',
    'store messages send - < note.txt --json',
  ],
  run,
});

export async function run(opts: SendOptions, ctx: Context): Promise<void> {
  const text = await messageText(opts.text, ctx);
  if (text === '') throw new FlagError('the message is empty; nothing was sent');
  const api = await ctx.api();
  let message: Awaited<ReturnType<typeof sendMessage>>;
  try {
    message = await sendMessage(api, text);
  } catch (error) {
    throw notingMaybeActed(error, 'the message may have been sent');
  }
  await renderItem(ctx.io, message, MESSAGE_COLUMNS, ctx.options);
}

/** Far beyond any message (the sandbox takes bodies up to 1 MiB); `yes |` is not one. */
const MESSAGE_ON_STDIN = {
  maxBytes: 1024 * 1024,
  tooLarge: 'the message on stdin is over 1 MiB; nothing was sent',
  notText: 'the message on stdin is not UTF-8 text; nothing was sent',
};

async function messageText(text: string | undefined, ctx: Context): Promise<string> {
  if (text !== undefined && text !== '-') {
    if (hasUnreadableBytes(text)) throw new FlagError(notUtf8('the message'));
    return text;
  }
  // Never wait on a terminal unless asked to with an explicit '-'.
  if (text === undefined && ctx.io.stdinIsTTY) {
    throw new FlagError('give the message as an argument, or pipe it on stdin');
  }
  // An explicit '-' at a terminal: say what is awaited, as `pets add --file -` does.
  if (ctx.io.stdinIsTTY) ctx.io.err('Type the message; Ctrl-D to send it\n');
  return stripNewline(await ctx.io.readStdin(MESSAGE_ON_STDIN, ctx.signal));
}

/** One trailing newline is what `echo` adds; it is not part of the message. */
function stripNewline(text: string): string {
  return text.replace(/\r?\n$/, '');
}
