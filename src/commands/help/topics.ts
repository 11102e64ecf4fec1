// The texts of `store help <topic>`, laid out for the width they are shown at. The environment
// variables and exit codes come from src/reference/ (the contract's tables, cell for cell);
// test/commands/help.test.ts pins the text at several widths.

import { ENVIRONMENT, PRECEDENCE } from '../../reference/environment.js';
import { EXIT_CODE_TABLE } from '../../reference/exit-codes.js';
import { definitions, examplesText, paragraph } from './layout.js';

/** A topic's text is made of blocks, each rendered to the width; blank lines between them. */
type Block = (width: number) => string;

const text =
  (line: string): Block =>
  (width) =>
    paragraph(line, width);

/** A paragraph under a heading, indented by two. */
const item =
  (heading: string, body: string): Block =>
  (width) =>
    `${paragraph(heading, width)}\n${paragraph(body, width, '  ')}`;

const examples =
  (commands: readonly string[]): Block =>
  (width) =>
    examplesText(commands, width);

function render(blocks: readonly Block[], width: number): string {
  return `${blocks.map((block) => block(width)).join('\n\n')}\n`;
}

const withFlag = ENVIRONMENT.filter((v) => v.flag);
const others = ENVIRONMENT.filter((v) => !v.flag);

const environment: Block[] = [
  text('Environment variables'),
  text('Each applies to the one invocation it is set for.'),
  text('With a flag (the flag wins):'),
  (width) =>
    definitions(
      withFlag.map((v) => [`${v.name}  ${v.flag}`, v.meaning]),
      width,
      true,
    ),
  text('Others:'),
  (width) =>
    definitions(
      others.map((v) => [v.name, v.meaning]),
      width,
      true,
    ),
  text(PRECEDENCE),
  examples([
    'STORE_PROFILE=staging store pets list',
    'STORE_API_KEY="$KEY" STORE_BASE_URL=http://127.0.0.1:4010/v1 store orders list',
    'NO_COLOR=1 store profile list',
  ]),
];

const exitCodes: Block[] = [
  text('Exit codes'),
  (width) =>
    definitions(
      EXIT_CODE_TABLE.map((e) => [String(e.code), e.meaning]),
      width,
    ),
  text(
    "`pets add --file` exits 0 only when every object was created; otherwise with the code of the first failure in input order, after reporting every one. An object that fails the client's own validation is not sent and counts as rejected input (exit 3); a file that is not JSON/NDJSON at all is a usage error (exit 2) and nothing is sent.",
  ),
  examples([
    'store pets get 42 || echo "failed with exit $?"',
    'store auth status >/dev/null 2>&1 || store auth login',
  ]),
];

/** The examples of `store help formatting`: each is run by the tests, against the sandbox. */
export const FORMATTING_EXAMPLES = [
  'store pets list --status available | tail -n +2 | cut -f2',
  "store pets list | awk -F'\\t' 'NR > 1 && $4 == \"sold\" { print $1 }'",
  'store pets list --json id,name',
  'store pets list --jq \'.[] | select(.status == "sold") | .name\'',
  "store pets list --jq 'map(.id) | max'",
  "store help --jq '.commands[].path'",
  'store pets add --file animals.ndjson --json > results.ndjson',
] as const;

const formatting: Block[] = [
  text('Output formats'),
  text(
    'Results go to stdout; warnings, progress and errors go to stderr, so a pipe carries data only. The same command prints one of three forms:',
  ),
  item(
    'Table (stdout is a terminal)',
    'Aligned columns with a header, the status in colour, text cut to fit the terminal (identifiers never are). Made for reading: do not parse it.',
  ),
  item(
    'Tab-separated (stdout is a pipe or a file, no --json)',
    'A header line, then one line per row, the fields separated by one tab: no borders, no truncation, and no colour unless asked for. A tab, a newline or another control character inside a value is shown escaped (\\t, \\n, \\x1b), and a backslash as \\\\, so a row is one line and every value reads back.',
  ),
  item(
    'JSON (--json)',
    'One JSON document on stdout: an array for a list, an object for one item, exactly the API\'s data, fields the client does not know included and ids above 2^53 digit for digit. Indented on a terminal, one line otherwise. `pets add --file --json` prints one JSON object per input object instead (NDJSON): the created animal, or {"input": n, "error": {code, message, status}} for the n-th one that was not created.',
  ),
  item(
    'Fields (--json FIELDS)',
    "--json id,name keeps only those keys of each object, in that order (a key an object lacks is null). Each command's --help lists its fields, and the shells complete them; a name that is not one is exit 2, nothing sent. Where the word after --json could also be the command's argument, it is the argument unless another word follows for it; --json=FIELDS is never read as anything else. `store help --json` describes every command, its flags and fields for a program.",
  ),
  item(
    'jq (--jq EXPRESSION)',
    "The JSON filtered by jq's own language, built in (no jq needed): each result on its own line, strings as their text (jq -r), anything else as JSON, ids above 2^53 exact. It implies --json. An expression that does not compile is exit 2 with jq's message and nothing sent; an error while filtering is exit 1 with jq's message and nothing on stdout. $ENV and env are the environment, as in jq, but for STORE_API_KEY (only `store auth token` prints the key): a script passes values that way (NAME=Rex store pets list --jq '.[] | select(.name == $ENV.NAME)'). Not for `pets add --file` (one line per input): pipe that to jq.",
  ),
  item(
    'Colour',
    'Only on a terminal, unless asked for: NO_COLOR (non-empty) or --no-color turn it off, CLICOLOR=0 on a terminal too; CLICOLOR_FORCE=1 or FORCE_COLOR=1 turn it on in a pipe. JSON is never coloured.',
  ),
  (width) =>
    [
      paragraph(
        'On failure stdout is empty (except for `pets add --file`) and stderr has one line:',
        width,
      ),
      paragraph('error: <message> (<code>, HTTP <status>)', width, '  '),
      'or, with --json or --jq:',
      // One JSON word: not broken, whatever the width.
      '  {"error":{"code":…,"message":…,"status":…}}',
      paragraph('The exit code tells the kind of failure: see `store help exit-codes`.', width),
    ].join('\n'),
  examples(FORMATTING_EXAMPLES),
];

export interface HelpTopic {
  summary: string;
  /** The text at a width in terminal cells, ending in a newline. */
  render(width: number): string;
}

export const HELP_TOPICS: Readonly<Record<string, HelpTopic>> = {
  environment: {
    summary: 'environment variables, and which setting wins',
    render: (width) => render(environment, width),
  },
  'exit-codes': {
    summary: 'what each exit code means',
    render: (width) => render(exitCodes, width),
  },
  formatting: {
    summary: 'table, tab-separated and JSON output, for scripts',
    render: (width) => render(formatting, width),
  },
};

export const HELP_TOPIC_NAMES = Object.keys(HELP_TOPICS);
