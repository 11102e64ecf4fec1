import { open } from 'node:fs/promises';
import type { Readable } from 'node:stream';
import { createPet } from '../../api/pets.js';
import { DEFAULT_CONCURRENCY, type ImportOptions, importPets } from '../../bulk/import.js';
import type { Context } from '../../context.js';
import { FlagError } from '../../errors.js';
import { renderItem } from '../../render/output.js';
import type { NewPet } from '../../schemas.js';
import * as z from '../../zod.js';
import { defineCommand, missingFlags } from '../define.js';
import { fileFlag, int64Flag, intFlag, statusFlag, switchFlag, textFlag } from '../flags.js';
import { PET_COLUMNS } from './columns.js';

export type AddOptions = ({ file: string } & ImportOptions) | { pet: NewPet };

const MAX_CONCURRENCY = 64;

export const command = defineCommand({
  name: 'add',
  description: 'Add an animal, or every animal in a file',
  flags: {
    name: {
      flags: '--name <name>',
      description: 'the animal’s name',
      schema: z.optional(textFlag('--name')),
    },
    categoryId: {
      flags: '--category-id <id>',
      description: 'the id of its category (int64)',
      schema: z.optional(int64Flag('--category-id')),
    },
    status: statusFlag('its status'),
    file: fileFlag(
      '--file <path>',
      'read animals from a file (- for stdin): a JSON object, a JSON array, or NDJSON',
    ),
    concurrency: {
      flags: '--concurrency <n>',
      description: `with --file: requests in flight at once, 1-${MAX_CONCURRENCY} (default ${DEFAULT_CONCURRENCY})`,
      schema: z.optional(intFlag('--concurrency', 1, MAX_CONCURRENCY)),
    },
    failed: fileFlag(
      '--failed <file>',
      'with --file: write every input not created to this file (NDJSON), to run again',
    ),
    skip: {
      flags: '--skip <n>',
      description: 'with --file: skip the first n inputs (resume an interrupted import)',
      schema: z.optional(intFlag('--skip', 0, Number.MAX_SAFE_INTEGER)),
    },
    dryRun: switchFlag('--dry-run', 'with --file: check every input and send nothing'),
  },
  examples: [
    'store pets add --name Rex --category-id 1 --status available',
    'store pets add --file animals.ndjson --json > results.ndjson',
    'echo \'{"name":"Tom","categoryId":2}\' | store pets add --file -',
    'store pets add --file animals.ndjson --failed retry.ndjson',
    'store pets add --file animals.ndjson --skip 1200',
  ],
  check({ file, name, categoryId, status, concurrency, failed, skip, dryRun }): AddOptions {
    if (file !== undefined) {
      if (name !== undefined || categoryId !== undefined || status !== undefined) {
        throw new FlagError('--file cannot be combined with --name, --category-id or --status');
      }
      return {
        file,
        concurrency: concurrency ?? DEFAULT_CONCURRENCY,
        failed,
        skip: skip ?? 0,
        dryRun,
      };
    }
    const bulkOnly = [
      ['--concurrency', concurrency !== undefined],
      ['--failed', failed !== undefined],
      ['--skip', skip !== undefined],
      ['--dry-run', dryRun],
    ].filter(([, given]) => given);
    if (bulkOnly.length > 0)
      throw new FlagError(
        `${bulkOnly.map(([flag]) => flag).join(', ')} ${bulkOnly.length > 1 ? 'go' : 'goes'} with --file`,
      );
    const missing = [
      ...(name === undefined ? ['--name'] : []),
      ...(categoryId === undefined ? ['--category-id'] : []),
    ];
    if (name === undefined || categoryId === undefined) {
      throw missingFlags(missing, ' (or give --file)');
    }
    return { pet: status === undefined ? { name, categoryId } : { name, categoryId, status } };
  },
  run,
});

export async function run(opts: AddOptions, ctx: Context): Promise<void> {
  if ('pet' in opts) {
    const pet = await createPet(await ctx.api(), opts.pet);
    await renderItem(ctx.io, pet, PET_COLUMNS, ctx.options);
    return;
  }
  if (opts.file === '-' && ctx.io.stdinIsTTY) {
    ctx.io.err('Reading animals from the terminal, one JSON object per line; Ctrl-D to finish\n');
  }
  const input = await openInput(opts.file, ctx);
  try {
    await importPets(input, ctx, opts);
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
