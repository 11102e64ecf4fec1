// The texts of `store help <topic>`. The tables are the contract's (cli-contract.md), cell
// for cell (names without their Markdown code marks); test/commands/help-topics.test.ts
// holds the contract's rows and fails when the two differ.

import { ENVIRONMENT, PRECEDENCE } from '../../reference/environment.js';
import { EXIT_CODE_TABLE } from '../../reference/exit-codes.js';

type Row = readonly string[];

/** Columns padded to their widest cell, two spaces apart, indented by two. */
function table(header: Row, rows: readonly Row[]): string {
  const widths = header.map((_, i) =>
    Math.max(...[header, ...rows].map((row) => row[i]?.length ?? 0)),
  );
  const line = (row: Row) =>
    `  ${row.map((cell, i) => (i === row.length - 1 ? cell : cell.padEnd(widths[i] ?? 0))).join('  ')}`;
  return [header, ...rows].map(line).join('\n');
}

const ENV_WITH_FLAG: readonly Row[] = ENVIRONMENT.filter((v) => v.flag).map((v) => [
  v.name,
  v.flag ?? '',
  v.meaning,
]);
const ENV_OTHER: readonly Row[] = ENVIRONMENT.filter((v) => !v.flag).map((v) => [
  v.name,
  v.meaning,
]);
const EXIT_CODES: readonly Row[] = EXIT_CODE_TABLE.map((e) => [String(e.code), e.meaning]);

const environment = `Environment variables

Each applies to the one invocation it is set for.

With a flag (the flag wins):

${table(['VARIABLE', 'FLAG', 'MEANING'], ENV_WITH_FLAG)}

Others:

${table(['VARIABLE', 'MEANING'], ENV_OTHER)}

${PRECEDENCE}

Examples:
  $ STORE_PROFILE=staging store pets list
  $ STORE_API_KEY="$KEY" STORE_BASE_URL=http://127.0.0.1:4010/v1 store orders list
  $ NO_COLOR=1 store profile list
`;

const exitCodes = `Exit codes

${table(['EXIT', 'MEANING'], EXIT_CODES)}

\`pets add --file\` exits 0 only when every object was created; otherwise with the code of the
first failure in input order, after reporting every one. An object that fails the client's own
validation is not sent and counts as rejected input (exit 3); a file that is not JSON/NDJSON at
all is a usage error (exit 2) and nothing is sent.

Examples:
  $ store pets get 42 || echo "failed with exit $?"
  $ store auth status >/dev/null 2>&1 || store auth login
`;

const formatting = `Output formats

Results go to stdout; warnings, progress and errors go to stderr, so a pipe carries data only.
The same command prints one of three forms:

Table (stdout is a terminal)
  Aligned columns with a header, the status in colour. Made for reading: do not parse it.

Tab-separated (stdout is a pipe or a file, no --json)
  A header line, then one line per row, the fields separated by one tab: no borders, no
  truncation, and no colour unless FORCE_COLOR asks for it. A tab, a newline or another
  control character inside a value is shown escaped (\\t, \\n, \\x1b), so a row is one line.

JSON (--json)
  One JSON document on stdout: an array for a list, an object for one item, exactly the API's
  data, fields the client does not know included and ids above 2^53 digit for digit.
  Indented on a terminal, one line otherwise. \`pets add --file --json\` prints one JSON
  object per input object instead (NDJSON): the created animal, or
  {"input": n, "error": {code, message, status}} for the n-th one that was not created.

On failure stdout is empty (except for \`pets add --file\`) and stderr has one line:
  error: <message> (<code>, HTTP <status>)
or, with --json:
  {"error":{"code":…,"message":…,"status":…}}
The exit code tells the kind of failure: see \`store help exit-codes\`.

Examples:
  $ store pets list --status available | tail -n +2 | cut -f2
  $ store pets list | awk -F'\\t' 'NR > 1 && $4 == "sold" { print $1 }'
  $ store pets list --json | jq -r '.[].name'
  $ store pets add --file animals.ndjson --json > results.ndjson
`;

export const HELP_TOPICS: Readonly<Record<string, { summary: string; text: string }>> = {
  environment: {
    summary: 'environment variables, and which setting wins',
    text: environment,
  },
  'exit-codes': { summary: 'what each exit code means', text: exitCodes },
  formatting: { summary: 'table, tab-separated and JSON output, for scripts', text: formatting },
};

export const HELP_TOPIC_NAMES = Object.keys(HELP_TOPICS);
