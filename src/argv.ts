// The command line read once, before commander parses it, for what must be known earlier:
// which command's module to load, and how to report an error thrown before the options were
// parsed (as JSON under --json or --jq; with a stack under --debug). bin/store.js, which runs
// before any of the program is loaded, keeps its own short reading for naming a code cache.

/** The value `--json` takes: names, with at least one comma (a lone name may be a command). */
const FIELD_LIST = /^\s*[A-Za-z_][\w-]*(?:\s*,\s*[A-Za-z_][\w-]*)+\s*$/;

export interface ScannedArgv {
  /** The first two words that are not options or option values: `pets`, `list`. */
  readonly words: readonly string[];
  /** Help or the version was asked for (`store --help pets list` is the program's help). */
  readonly help: boolean;
  /** --json or --jq given before any `--`. */
  readonly json: boolean;
  /** --debug given before any `--`. */
  readonly debug: boolean;
}

/** Reads `argv`; `takesValue` holds the global flags whose next word is their value. */
export function scanArgv(argv: readonly string[], takesValue: ReadonlySet<string>): ScannedArgv {
  const words: string[] = [];
  let help = false;
  let json = false;
  let debug = false;
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i] as string;
    if (arg === '--') break;
    if (arg === '-h' || arg === '--help' || arg === '-V' || arg === '--version') help = true;
    else if (/^--(?:json|jq)(?:=|$)/.test(arg)) json = true;
    else if (arg === '--debug') debug = true;
    // `--json id,name pets list`: a list of fields after --json is its value, not a word
    // (`--json pets list` keeps `pets`: a single name is taken for a command word here).
    const fields = arg === '--json' && FIELD_LIST.test(argv[i + 1] ?? '');
    if (takesValue.has(arg) || fields) i += 1;
    else if (!arg.startsWith('-') && words.length < 2) words.push(arg);
  }
  return { words, help, json, debug };
}
