import type { Readable } from 'node:stream';
import { createPet } from '../../api/pets.js';
import {
  BULK_V8_FLAGS,
  DEFAULT_CONCURRENCY,
  type ImportOptions,
  importPets,
  uncertainPath,
} from '../../bulk/import.js';
import { defaultJournalPath, destinationOf } from '../../bulk/journal.js';
import { commandFor } from '../../config/profile-hints.js';
import type { Context } from '../../context.js';
import { CancelledError, FlagError, notingMaybeActed, withHint } from '../../errors.js';
import { fileProblem } from '../../file-errors.js';
import { noticeLine } from '../../render/bulk-report.js';
import { renderItem } from '../../render/output.js';
import { type Int64, type NewPet, PET_STATUSES, Pet, type PetStatus } from '../../schemas.js';
import * as z from '../../zod.js';
import { defineCommand, missingFlags, parseValue } from '../define.js';
import { fileFlag, int64Flag, intFlag, statusFlag, switchFlag, textFlag } from '../flags.js';
import {
  checkStdinReadable,
  fileFacts,
  openUntilCtrlC,
  stdinFd,
  stdinFile,
} from '../input-file.js';
import { PET_COLUMNS } from './columns.js';

/** One animal from flags: what is missing is asked for on a terminal (run), else refused. */
export interface OneAnimal {
  name?: string;
  categoryId?: Int64;
  status?: PetStatus;
}

export type AddOptions = ({ file: string } & ImportOptions) | { pet: OneAnimal };

const MAX_CONCURRENCY = 64;

export const command = defineCommand({
  name: 'add',
  description: 'Add an animal (on a terminal, asks for what is missing), or every animal in a file',
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
    uncertain: fileFlag(
      '--uncertain <file>',
      'with --file: write every input that may have been created to this file (default: the --failed file + .uncertain)',
    ),
    journal: fileFlag(
      '--journal <file>',
      'with --file: record what was sent and answered in this file (default: one in the cache folder)',
    ),
    resume: switchFlag(
      '--resume',
      'with --file: continue the import its journal records, after a kill or a crash',
    ),
    skip: {
      flags: '--skip <n>',
      description:
        'with --file: skip the first n inputs (resume an interrupted import as its advice says: its --failed and --uncertain are kept)',
      schema: z.optional(intFlag('--skip', 0, Number.MAX_SAFE_INTEGER)),
    },
    dryRun: switchFlag('--dry-run', 'with --file: check every input and send nothing'),
  },
  // One animal from its fields: a file is of this machine, not the agent's.
  mcp: {
    access: 'write',
    description: 'Add one animal',
    required: ['name', 'categoryId'],
    omit: ['file', 'concurrency', 'failed', 'uncertain', 'journal', 'resume', 'skip', 'dryRun'],
  },
  // With --file: one such object per input, on its own line.
  output: { shape: 'object', fields: Pet },
  network: true,
  examples: [
    'store pets add --name Rex --category-id 1 --status available',
    'store pets add --file animals.ndjson --json > results.ndjson',
    'echo \'{"name":"Tom","categoryId":2}\' | store pets add --file -',
    'store pets add --file animals.ndjson --failed retry.ndjson',
    'store pets add --file animals.ndjson --skip 1200',
    'store pets add --file animals.ndjson --resume',
  ],
  check({
    file,
    name,
    categoryId,
    status,
    concurrency,
    failed,
    uncertain,
    journal,
    resume,
    skip,
    dryRun,
  }): AddOptions {
    if (file !== undefined) {
      if (name !== undefined || categoryId !== undefined || status !== undefined) {
        throw new FlagError('--file cannot be combined with --name, --category-id or --status');
      }
      if (resume && (skip !== undefined || dryRun)) {
        throw new FlagError(
          `--resume cannot be combined with ${skip !== undefined ? '--skip' : '--dry-run'}: it continues where the journal says`,
        );
      }
      const outputs = [
        ['--failed', failed],
        ['--uncertain', uncertainPath({ failed, uncertain })],
        ['--journal', journal],
      ].filter((pair): pair is [string, string] => pair[1] !== undefined);
      refuseOneFileTwice(outputs);
      return {
        file,
        concurrency: concurrency ?? DEFAULT_CONCURRENCY,
        failed,
        uncertain,
        journal,
        resume,
        skip: skip ?? 0,
        dryRun,
      };
    }
    const bulkOnly = [
      ['--concurrency', concurrency !== undefined],
      ['--failed', failed !== undefined],
      ['--uncertain', uncertain !== undefined],
      ['--journal', journal !== undefined],
      ['--resume', resume],
      ['--skip', skip !== undefined],
      ['--dry-run', dryRun],
    ].filter(([, given]) => given);
    if (bulkOnly.length > 0)
      throw new FlagError(
        `${bulkOnly.map(([flag]) => flag).join(', ')} ${bulkOnly.length > 1 ? 'go' : 'goes'} with --file`,
      );
    return { pet: { name, categoryId, status } };
  },
  run,
});

export async function run(opts: AddOptions, ctx: Context): Promise<void> {
  if ('pet' in opts) {
    // Asked for (or refused) before the profile and its key are even looked at.
    const pet = await completePet(opts.pet, ctx);
    const api = await ctx.api();
    let created: Awaited<ReturnType<typeof createPet>>;
    try {
      created = await createPet(api, pet);
    } catch (error) {
      // The service lists at most 100 animals and cannot search by name: said, not hidden.
      const look = commandFor(await ctx.profile(), 'pets list --limit 100');
      throw notingMaybeActed(
        error,
        `the animal may have been created: before adding it again, look for it with \`${look}\` (the service cannot search by name)`,
      );
    }
    await renderItem(ctx.io, created, PET_COLUMNS, ctx.options);
    return;
  }
  // A large import's memory is bounded by flags given at start-up: the process starts over
  // with them here, before anything is read, written or sent. A small one (or a dry run)
  // stays as it is: it would not grow, and a restart is one more start.
  // A Ctrl-C already received would be lost in the restart.
  if (ctx.signal.aborted) throw new CancelledError();
  // One result per input, as it comes, and failures among them: a filter of the whole would
  // hold every line back, one per line would mix with failures.
  if (ctx.options.jq !== undefined) {
    throw withHint(
      new FlagError('--jq does not apply to pets add --file'),
      'its --json output is NDJSON, one line per input: pipe it to jq',
    );
  }
  // `--file - < "$HOME"`: a folder on stdin is an error, not an empty input.
  if (opts.file === '-') checkStdinReadable(ctx.io.stdin);
  const journalPath = await journalFor(opts, ctx);
  const outputs = [
    ['--failed', opts.failed],
    ['--uncertain', uncertainPath(opts)],
    ['--journal', journalPath],
  ] as const;
  for (const [flag, path] of outputs) await refuseOutputOverInput(opts.file, flag, path, ctx);
  const sized =
    opts.dryRun || !(await mayBeLarge(opts.file, ctx)) || ctx.restartWithV8Flags(BULK_V8_FLAGS);
  if (opts.file === '-' && ctx.io.stdinIsTTY) {
    ctx.io.err(
      noticeLine(
        ctx.options.json,
        'Reading animals from the terminal, one JSON object per line; Ctrl-D to finish',
      ),
      ctx.options.json,
    );
  }
  const input = await openInput(opts.file, ctx);
  try {
    await importPets(input.stream, ctx, opts, {
      journalPath,
      inputBytes: input.bytes,
      inputFile: input.identity,
      sizeHeapAtRunTime: !sized,
      destination: destinationOf((await ctx.profile()).baseUrl),
    });
  } finally {
    input.stream.destroy();
  }
}

/** Two of --failed, --uncertain and --journal naming one file (or two links to it) would
 * write over each other. */
function refuseOneFileTwice(outputs: readonly (readonly [string, string])[]): void {
  for (let i = 0; i < outputs.length; i += 1) {
    for (let j = i + 1; j < outputs.length; j += 1) {
      const [a, fileA] = outputs[i] as readonly [string, string];
      const [b, fileB] = outputs[j] as readonly [string, string];
      if (sameFile(fileA, fileB)) {
        throw new FlagError(`${a} and ${b} name the same file (${fileA}): give each its own`);
      }
    }
  }
}

/** The journal of this import: --journal, else one in the cache folder named after the file
 * and where it goes; none for a dry run (nothing is sent) or stdin (nothing names it). */
async function journalFor(opts: ImportOptions & { file: string }, ctx: Context) {
  if (opts.dryRun) return undefined;
  if (opts.journal !== undefined) return opts.journal;
  if (opts.file === '-') return undefined;
  const profile = await ctx.profile();
  return defaultJournalPath(ctx.env, opts.file, profile.baseUrl);
}

/**
 * The animal to send: as given when nothing required is missing; else, on a terminal, what is
 * missing is asked for (and the status, unless given); without one, every missing flag is
 * named in one usage error. Nothing is sent before this returns.
 */
async function completePet(given: OneAnimal, ctx: Context): Promise<NewPet> {
  const missing = [
    ...(given.name === undefined ? ['--name'] : []),
    ...(given.categoryId === undefined ? ['--category-id'] : []),
  ];
  let { name, categoryId, status } = given;
  if (name !== undefined && categoryId !== undefined) return withStatus(name, categoryId, status);
  const { prompter } = ctx;
  if (!prompter.canAsk) throw missingFlags(missing, ' (or give --file)');
  name ??= await prompter.ask('Name: ', (text) => parseValue(textFlag('the name'), text));
  categoryId ??= await prompter.ask('Category id: ', (text) =>
    parseValue(int64Flag('the category id'), text),
  );
  if (status === undefined) {
    const choices = PET_STATUSES.map((value, i) => `${i + 1}) ${value}`).join('  ');
    status = await prompter.ask(`Status: ${choices}, or Enter for none: `, pickStatus);
  }
  return withStatus(name, categoryId, status);
}

function withStatus(name: string, categoryId: Int64, status: PetStatus | undefined): NewPet {
  return status === undefined ? { name, categoryId } : { name, categoryId, status };
}

/** A status by its number or its name; nothing for none. */
function pickStatus(text: string): PetStatus | undefined {
  const answer = text.trim();
  if (answer === '') return undefined;
  const byNumber = /^\d+$/.test(answer) ? PET_STATUSES[Number(answer) - 1] : undefined;
  const picked = byNumber ?? PET_STATUSES.find((value) => value === answer);
  if (!picked) {
    throw new FlagError(
      `choose 1 to ${PET_STATUSES.length}, or ${PET_STATUSES.join(', ')}, or press Enter for none`,
    );
  }
  return picked;
}

/** Below this size an import's memory stays near 100 MiB under V8's defaults
 * (docs/performance.md). */
const LARGE_INPUT_BYTES = 128 * 1024;

/** Whether the input may be large: a file of LARGE_INPUT_BYTES or more, or stdin unless
 * typed at a terminal (a pipe's size is not known beforehand). A file that cannot be read is
 * not: openInput says why. */
async function mayBeLarge(file: string, ctx: Context): Promise<boolean> {
  if (file === '-') return !ctx.io.stdinIsTTY;
  try {
    const { size } = await process.getBuiltinModule('node:fs/promises').stat(file);
    return size >= LARGE_INPUT_BYTES;
  } catch {
    return false;
  }
}

/**
 * `--failed` (and `--uncertain`, the journal) is opened for writing (emptied) before the input
 * is read: naming the input file there (`--file retry.ndjson --failed retry.ndjson`, the
 * natural retry) would lose every input. Refused before anything is read, written or sent; a
 * link to it is the same file.
 */
async function refuseOutputOverInput(
  file: string,
  flag: string,
  output: string | undefined,
  ctx: Context,
): Promise<void> {
  if (output === undefined) return;
  // `--file - < retry.ndjson`: stdin is that file (a pipe from `cat` cannot be told).
  const input = file === '-' ? stdinFd(ctx.io.stdin) : file;
  if (input === undefined) return;
  if (sameFile(input, output)) {
    const what = { '--journal': 'the journal', '--uncertain': 'the uncertain inputs' }[flag];
    throw new FlagError(
      `${flag} ${output} is the --file being read: it would be emptied before it is read; write ${what ?? 'the failures'} to another file`,
    );
  }
}

/** The same file: one path, or two names (a link) for one file; a descriptor (stdin) counts
 * as its file. One that does not exist (yet) is no other's. */
function sameFile(a: string | number, b: string): boolean {
  const { resolve } = process.getBuiltinModule('node:path');
  if (typeof a === 'string' && resolve(a) === resolve(b)) return true;
  const fs = process.getBuiltinModule('node:fs');
  try {
    const first = typeof a === 'number' ? fs.fstatSync(a) : fs.statSync(a);
    const second = fs.statSync(b);
    return first.dev === second.dev && first.ino === second.ino;
  } catch {
    return false;
  }
}

/** The input, and its size when it is a regular file (for an estimate of the time left). */
async function openInput(
  file: string,
  ctx: Context,
): Promise<{ stream: Readable; bytes?: number; identity?: string }> {
  // stdin too, when it is a file: a --resume from another file is told apart.
  if (file === '-') return { stream: ctx.io.stdin, ...stdinFile(ctx.io.stdin) };
  let problem: string;
  try {
    const handle = await openUntilCtrlC(file, ctx.signal);
    const stats = await handle.stat();
    if (!stats.isDirectory()) {
      if (!stats.isFile()) return { stream: handle.createReadStream() };
      return { stream: handle.createReadStream(), ...fileFacts(stats) };
    }
    await handle.close();
    problem = 'it is a directory';
  } catch (error) {
    if (error instanceof CancelledError) throw error;
    problem = fileProblem(error);
  }
  throw new FlagError(`cannot read --file ${file}: ${problem}`);
}
