// A command is declared once: its words, arguments and flags (each with its parser, help text
// and completion values), examples, and the function that runs it. From that one declaration
// come the commander command, its --help, its completion, the man page, and the typed options
// `run` receives. Flags are parsed and validated here, before `run`: a bad value is exit 2 with
// nothing sent.
import { Argument, type Command, Option } from 'commander';
import { setCompletion, type Values } from '../completion/hints.js';
import type { Context } from '../context.js';
import { type ExitCode, FlagError } from '../errors.js';
import type * as z from '../zod.js';
import { takes } from './flags.js';
import { examplesText, helpWidth } from './help/layout.js';
import { commandPath, jsonFieldsHelp, prepareJsonOutput } from './json-output.js';
import { noteMissingValue } from './missing-value.js';

/** Builds (once) the context of the invocation that is running `command`. */
export type ContextFactory = (command: Command) => Context;

export interface FlagSpec<S extends z.ZodMiniType = z.ZodMiniType> {
  /** As commander spells it: `-X, --method <method>`, `--with-key`, `--no-verify`. */
  flags: string;
  description: string;
  /** Parses what commander collected: a string (or undefined) for a flag with a value, a
   * boolean for a switch, an array of strings for a repeatable flag. */
  schema: S;
  /** What the value completes to in a shell. */
  complete?: Values;
  /** The flag may be given more than once; its values are collected in order. */
  repeatable?: boolean;
  /** Shown in --help as `(default: …)`; the schema supplies the value itself. */
  defaultText?: string;
  /** The description for `store mcp`, where `description` speaks of the command line. */
  mcpDescription?: string;
}

export interface ArgSpec<S extends z.ZodMiniType = z.ZodMiniType> {
  /** As commander spells it: `<petId>`, `[text]`, `[name...]`. */
  name: string;
  description: string;
  schema: S;
  complete?: Values;
  /** The description for `store mcp`, where `description` speaks of the command line. */
  mcpDescription?: string;
}

type Outputs<T extends Record<string, { schema: z.ZodMiniType }>> = {
  [K in keyof T]: z.output<T[K]['schema']>;
};

/** The options `run` gets when the declaration has no `check`: every flag and argument. */
export type Parsed<
  F extends Record<string, FlagSpec>,
  A extends Record<string, ArgSpec>,
> = Outputs<F> & Outputs<A>;

/**
 * What a command prints under --json, declared once: `--json FIELDS` chooses among its
 * fields, --help and `store help --json` list them, MCP tools return them. The fields are the
 * keys of `fields`, a schema of src/schemas.ts (or the command's own where the API has none).
 */
export type OutputSpec =
  | {
      /** One object, an array of them, or one object per line (NDJSON). */
      shape: 'object' | 'list' | 'lines';
      fields: z.ZodMiniObject;
    }
  /** Whatever the API answered: no fields are declared, and any may be chosen. */
  | { shape: 'any' };

export interface CommandSpec<
  F extends Record<string, FlagSpec>,
  A extends Record<string, ArgSpec>,
  O,
> {
  name: string;
  description: string;
  hidden?: boolean;
  /** Positional arguments, in order; the key is the name `run` sees. */
  args?: A;
  /** The key is the name `run` sees, and must be commander's camel-case name of the flag. */
  flags?: F;
  /** What it prints under --json; a command without one prints no data. */
  output?: OutputSpec;
  /** It calls the API: the exit codes of the API's answers (3 to 7) may come from it. */
  network?: boolean;
  /** Exit codes it gives without calling the API, beyond 0, 1, 2 and 130 (`auth token`: 4
   * when there is no key). */
  exitCodes?: readonly ExitCode[];
  /** Lines shown under "Examples:" in --help, without the `$ `. */
  examples: readonly string[];
  /** Rules between flags (one excludes another…): returns the options `run` gets, or throws a
   * FlagError. Without it, `run` gets the parsed flags and arguments as they are. */
  check?: (parsed: Parsed<F, A>) => O;
  /** Offered to AI agents as a tool by `store mcp` (src/mcp/tools.ts); not offered without. */
  mcp?: McpSpec<F, A>;
  /** `command` is commander's; a command offered as a tool (`mcp`) must not need it. */
  run(opts: O, ctx: Context, command: Command): Promise<void>;
}

/** How `store mcp` offers a command. */
export interface McpSpec<
  F extends Record<string, FlagSpec> = Record<string, FlagSpec>,
  A extends Record<string, ArgSpec> = Record<string, ArgSpec>,
> {
  /** 'write': the command changes data, and is offered only under `store mcp --allow-writes`;
   * 'read': it changes nothing, and is always offered. */
  access: 'read' | 'write';
  /** The tool's name, when not the command's words joined by `_` (`api` is `api_get`). */
  name?: string;
  /** The tool's description, where the command's speaks of the command line (a terminal,
   * stdin, a file, other flags). */
  description?: string;
  /** Flags and arguments a tool call must give, where the command would ask for them on a
   * terminal or read them from stdin. */
  required?: readonly ((keyof F | keyof A) & string)[];
  /** Flags an agent does not give: those naming files of this machine, or changing what the
   * output is. */
  omit?: readonly (keyof F & string)[];
  /** Flags an agent does not give either, with the value the command gets for them instead,
   * as commander would collect it (`api_get`: `{ method: 'GET' }`). */
  fixed?: Partial<Record<keyof F & string, unknown>>;
}

/** What `store mcp` needs of a declaration: its parts as declared, and a way to run it. */
export interface ToolSource {
  readonly mcp: McpSpec;
  readonly description: string;
  /** What it prints under --json: the tool's result. */
  readonly output?: OutputSpec;
  readonly flags: readonly [string, FlagSpec][];
  readonly args: readonly [string, ArgSpec][];
  /** Runs the command with each flag's and argument's value as commander would collect it
   * (text, a switch's boolean, a repeatable flag's array): parsed and checked as on the
   * command line first, so a bad value is a FlagError with nothing sent. */
  invoke(raw: Readonly<Record<string, unknown>>, ctx: Context): Promise<void>;
}

export interface CommandDefinition {
  readonly name: string;
  readonly description: string;
  readonly output?: OutputSpec;
  register(parent: Command, context: ContextFactory): Command;
  /** Present when the declaration offers the command to `store mcp`. */
  readonly tool?: ToolSource;
}

/** What a registered command, option or argument was declared with (for `store help --json`,
 * the completion scripts, the man page: they read the commander tree). */
const declared = new WeakMap<
  object,
  { output?: OutputSpec; network: boolean; exitCodes: readonly ExitCode[] }
>();
const declaredFlags = new WeakMap<Option | Argument, FlagSpec | ArgSpec>();

/** The --json output a registered command declares (none for nouns, help, completion…). */
export function outputOf(command: Command): OutputSpec | undefined {
  return declared.get(command)?.output;
}

/** Whether a registered command calls the API. */
export function usesNetwork(command: Command): boolean {
  return declared.get(command)?.network ?? false;
}

/** The exit codes a registered command declares beyond those of every command and the API's. */
export function moreExitCodes(command: Command): readonly ExitCode[] {
  return declared.get(command)?.exitCodes ?? [];
}

/** The declaration of a registered option (global ones too) or argument. */
export function declarationOf(target: Option | Argument): FlagSpec | ArgSpec | undefined {
  return declaredFlags.get(target);
}

/** Examples shown at the end of a command's --help, fitted to the help's width. */
export function examples(
  lines: readonly string[],
): (context: { error: boolean; command: Command }) => string {
  return ({ error, command }) => `\n${examplesText(lines, helpWidth(command, error))}\n`;
}

/** Turns a flag declaration into commander's Option (shared with the global options). */
export function toOption(key: string, spec: FlagSpec): Option {
  // Commander prints `(default: …)` only for a default value it holds itself; the value comes
  // from the schema here, so the text goes into the description (--help, the man page).
  const option = new Option(
    spec.flags,
    spec.defaultText === undefined
      ? spec.description
      : `${spec.description} (default: ${spec.defaultText})`,
  );
  if (option.attributeName() !== key) {
    throw new Error(`flag ${spec.flags} is declared as "${key}", not "${option.attributeName()}"`);
  }
  if (spec.repeatable) {
    option.argParser((value: string, previous: string[] | undefined) => [
      ...(previous ?? []),
      value,
    ]);
  }
  if (option.required) {
    const rule = takes(spec.schema);
    const name = option.long ?? option.short ?? spec.flags;
    noteMissingValue(spec.flags, `${name} needs a value${rule ? `: ${rule}` : ''}`);
  }
  if (spec.complete) setCompletion(option, spec.complete);
  declaredFlags.set(option, spec);
  return option;
}

export function defineCommand<
  F extends Record<string, FlagSpec> = Record<never, FlagSpec>,
  A extends Record<string, ArgSpec> = Record<never, ArgSpec>,
  O = Parsed<F, A>,
>(spec: CommandSpec<F, A, O>): CommandDefinition {
  const flags = Object.entries(spec.flags ?? {}) as [string, FlagSpec][];
  const args = Object.entries(spec.args ?? {}) as [string, ArgSpec][];
  /** The options `run` gets, from what commander (or a tool call) collected, by key. */
  const options = (raw: Readonly<Record<string, unknown>>): O => {
    const values: Record<string, unknown> = {};
    for (const [key, flag] of flags) values[key] = parseValue(flag.schema, raw[key]);
    for (const [key, arg] of args) values[key] = parseValue(arg.schema, raw[key]);
    const parsed = values as Parsed<F, A>;
    return spec.check ? spec.check(parsed) : (parsed as O);
  };
  const tool: ToolSource | undefined = spec.mcp && {
    mcp: spec.mcp as McpSpec,
    description: spec.description,
    output: spec.output,
    flags,
    args,
    // A tool call has no commander Command; the commands offered as tools never read it.
    invoke: (raw, ctx) => spec.run(options(raw), ctx, undefined as unknown as Command),
  };
  return {
    name: spec.name,
    tool,
    description: spec.description,
    output: spec.output,
    register(parent, context) {
      const command = parent
        .command(spec.name, { hidden: spec.hidden === true })
        .description(spec.description);
      declared.set(command, {
        output: spec.output,
        network: spec.network === true,
        exitCodes: spec.exitCodes ?? [],
      });
      if (spec.output) command.addHelpText('after', jsonFieldsHelp(spec.output));
      command.addHelpText('after', examples(spec.examples));
      for (const [key, arg] of args) {
        const argument = new Argument(arg.name, arg.description);
        if (argument.name() !== key) {
          throw new Error(`argument ${arg.name} is declared as "${key}"`);
        }
        if (arg.complete) setCompletion(argument, arg.complete);
        declaredFlags.set(argument, arg);
        command.addArgument(argument);
      }
      for (const [key, flag] of flags) command.addOption(toOption(key, flag));
      command.action(async (...received: unknown[]) => {
        const invoked = received[received.length - 1] as Command;
        const raw: Record<string, unknown> = { ...invoked.opts() };
        args.forEach(([key], i) => {
          raw[key] = invoked.processedArgs[i];
        });
        const opts = options(raw);
        const ctx = context(invoked);
        // Fields and a jq filter are checked before anything is read or sent.
        await prepareJsonOutput(spec.output, ctx.options, commandPath(invoked));
        await spec.run(opts, ctx, invoked);
      });
      return command;
    },
  };
}

/** One value through its schema; the first issue becomes the usage error. */
export function parseValue<S extends z.ZodMiniType>(schema: S, raw: unknown): z.output<S> {
  const result = schema.safeParse(raw);
  if (result.success) return result.data;
  throw new FlagError(result.error.issues[0]?.message ?? 'invalid arguments');
}

/** One error naming every missing flag: `--name and --category-id are required`. */
export function missingFlags(names: readonly string[], hint = ''): FlagError {
  const list =
    names.length <= 1
      ? (names[0] ?? '')
      : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;
  return new FlagError(`${list} ${names.length > 1 ? 'are' : 'is'} required${hint}`);
}
