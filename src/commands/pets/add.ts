import { readFile } from 'node:fs/promises';
import type { Command } from 'commander';
import { z } from 'zod';
import { createPet } from '../../api/pets.js';
import type { Context } from '../../context.js';
import {
  CancelledError,
  CliError,
  describeError,
  ExitCode,
  FlagError,
  NetworkError,
  SilentExit,
  toReport,
} from '../../errors.js';
import { parseJson } from '../../json.js';
import { renderItem, renderRows, writeJsonLine } from '../../render/output.js';
import { NewPet, PET_STATUSES, type Pet } from '../../schemas.js';
import { action, type ContextFactory } from '../action.js';
import { examples, int64Flag, statusFlag, textFlag } from '../flags.js';
import { PET_COLUMNS } from './columns.js';

export type AddOptions = { file: string } | { pet: NewPet };

const Flags = z
  .object({
    file: z.string().optional(),
    name: textFlag('--name').optional(),
    categoryId: int64Flag('--category-id').optional(),
    status: statusFlag.optional(),
  })
  .transform((flags, ctx): AddOptions => {
    const { file, name, categoryId, status } = flags;
    if (file !== undefined) {
      if (name !== undefined || categoryId !== undefined || status !== undefined) {
        ctx.addIssue({
          code: 'custom',
          message: '--file cannot be combined with --name, --category-id or --status',
        });
      }
      return { file };
    }
    if (name === undefined || categoryId === undefined) {
      const missing = name === undefined ? '--name' : '--category-id';
      ctx.addIssue({ code: 'custom', message: `${missing} is required (or give --file)` });
      return z.NEVER;
    }
    return { pet: status === undefined ? { name, categoryId } : { name, categoryId, status } };
  });

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
    renderItem(ctx.io, pet, PET_COLUMNS, ctx.options);
    return;
  }
  const text = await readInput(opts.file, ctx);
  await addAll(parseInputs(text), ctx);
}

async function readInput(file: string, ctx: Context): Promise<string> {
  if (file === '-') return ctx.io.readStdin(ctx.signal);
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    throw new FlagError(`cannot read --file ${file}${code ? ` (${code})` : ''}`);
  }
}

/** A JSON object, a JSON array of them, or NDJSON; anything else is a usage error. */
export function parseInputs(text: string): unknown[] {
  const trimmed = text.trim();
  if (trimmed === '') {
    throw new FlagError('--file is empty: expected a JSON object, a JSON array or NDJSON');
  }
  try {
    const document = parseJson(trimmed);
    return Array.isArray(document) ? document : [document];
  } catch {
    // Not one JSON document: read it as NDJSON below.
  }
  const values: unknown[] = [];
  for (const [index, line] of text.split('\n').entries()) {
    if (line.trim() === '') continue;
    try {
      values.push(parseJson(line));
    } catch {
      throw new FlagError(
        `--file: line ${index + 1} is not valid JSON (expected a JSON object, a JSON array or NDJSON); nothing was sent`,
      );
    }
  }
  return values;
}

function invalidInput(issues: z.core.$ZodIssue[]): CliError {
  const message = issues.map((issue) => `${issue.path.join('.') || 'input'}: ${issue.message}`);
  return new CliError(message.join('; '), ExitCode.rejected, 'invalid_input');
}

/** Sends one POST per object, in order; reports every object, fails with the first failure.
 * Once the server cannot be reached at all, the rest are reported as not sent rather than
 * each waiting out its own retries. */
async function addAll(inputs: unknown[], ctx: Context): Promise<void> {
  const api = await ctx.api();
  const created: Pet[] = [];
  let firstFailure: CliError | undefined;
  let unreachable: { at: number; error: NetworkError } | undefined;
  let failures = 0;
  for (const [index, input] of inputs.entries()) {
    const n = index + 1;
    let failure: CliError;
    const check = NewPet.safeParse(input);
    if (!check.success) {
      failure = invalidInput(check.error.issues);
    } else if (unreachable) {
      failure = new CliError(
        `not sent: input ${unreachable.at} could not reach the server (${unreachable.error.message})`,
        ExitCode.network,
        'not_sent',
      );
    } else {
      try {
        const pet = await createPet(api, input as NewPet);
        if (ctx.options.json) writeJsonLine(ctx.io, pet);
        else created.push(pet);
        continue;
      } catch (error) {
        if (error instanceof CancelledError || !(error instanceof CliError)) throw error;
        if (error instanceof NetworkError && error.unreachable) unreachable = { at: n, error };
        failure = error;
      }
    }
    firstFailure ??= failure;
    failures += 1;
    if (ctx.options.json) writeJsonLine(ctx.io, { input: n, error: toReport(failure) });
    else ctx.io.err(`error: input ${n}: ${describeError(failure)}\n`);
  }
  if (!ctx.options.json && created.length > 0) {
    renderRows(ctx.io, created, PET_COLUMNS, ctx.options);
  }
  if (firstFailure) {
    if (!ctx.options.json) {
      ctx.io.err(`${failures} of ${inputs.length} animals were not created\n`);
    }
    throw new SilentExit(firstFailure.exitCode);
  }
}
