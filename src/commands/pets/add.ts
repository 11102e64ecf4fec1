import { open } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import type { Command } from 'commander';
import { createPet } from '../../api/pets.js';
import type { Context } from '../../context.js';
import { FlagError } from '../../errors.js';
import { renderItem } from '../../render/output.js';
import { type NewPet, PET_STATUSES } from '../../schemas.js';
import * as z from '../../zod.js';
import { action, type ContextFactory } from '../action.js';
import { examples, int64Flag, intFlag, statusFlag, textFlag } from '../flags.js';
import { DEFAULT_CONCURRENCY, readInputs, sendAll } from './bulk.js';
import { PET_COLUMNS } from './columns.js';

export type AddOptions = { file: string; concurrency: number } | { pet: NewPet };

const MAX_CONCURRENCY = 64;

const Flags = z.pipe(
  z.object({
    file: z.optional(z.string()),
    name: z.optional(textFlag('--name')),
    categoryId: z.optional(int64Flag('--category-id')),
    status: z.optional(statusFlag),
    concurrency: z.optional(intFlag('--concurrency', 1, MAX_CONCURRENCY)),
  }),
  z.transform((flags, ctx): AddOptions => {
    const fail = (message: string) => ctx.issues.push({ code: 'custom', message, input: flags });
    const { file, name, categoryId, status, concurrency } = flags;
    if (file !== undefined) {
      if (name !== undefined || categoryId !== undefined || status !== undefined) {
        fail('--file cannot be combined with --name, --category-id or --status');
      }
      return { file, concurrency: concurrency ?? DEFAULT_CONCURRENCY };
    }
    if (concurrency !== undefined) {
      fail('--concurrency goes with --file');
      return z.NEVER;
    }
    if (name === undefined || categoryId === undefined) {
      const missing = name === undefined ? '--name' : '--category-id';
      fail(`${missing} is required (or give --file)`);
      return z.NEVER;
    }
    return { pet: status === undefined ? { name, categoryId } : { name, categoryId, status } };
  }),
);

export function register(pets: Command, context: ContextFactory): void {
  pets
    .command('add')
    .description('Add an animal, or every animal in a file')
    .option('--name <name>', 'the animal’s name')
    .option('--category-id <id>', 'the id of its category (int64)')
    .option('--status <status>', `its status (${PET_STATUSES.join(', ')})`)
    .option(
      '--file <path>',
      'read animals from a file (- for stdin): a JSON object, a JSON array, or NDJSON',
    )
    .option(
      '--concurrency <n>',
      `with --file: requests in flight at once, 1-${MAX_CONCURRENCY} (default ${DEFAULT_CONCURRENCY})`,
    )
    .addHelpText(
      'after',
      examples(
        'store pets add --name Rex --category-id 1 --status available',
        'store pets add --file animals.ndjson --json > results.ndjson',
        'echo \'{"name":"Tom","categoryId":2}\' | store pets add --file -',
      ),
    )
    .action(action(context, Flags, run));
}

export async function run(opts: AddOptions, ctx: Context): Promise<void> {
  if ('pet' in opts) {
    const pet = await createPet(await ctx.api(), opts.pet);
    await renderItem(ctx.io, pet, PET_COLUMNS, ctx.options);
    return;
  }
  const input = await openInput(opts.file, ctx);
  try {
    await sendAll(readInputs(input, ctx.signal), ctx, opts.concurrency);
  } finally {
    input.destroy();
  }
}

async function openInput(file: string, ctx: Context): Promise<Readable> {
  if (file === '-') return ctx.io.stdin;
  let code: string | undefined;
  try {
    const handle = await open(file);
    if (!(await handle.stat()).isDirectory()) return handle.createReadStream();
    await handle.close();
    code = 'EISDIR';
  } catch (error) {
    code = (error as NodeJS.ErrnoException).code;
  }
  throw new FlagError(`cannot read --file ${file}${code ? ` (${code})` : ''}`);
}
