import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { HELP_TOPIC_NAMES } from '../../src/commands/help/topics.js';
import { GLOBAL_FLAGS } from '../../src/program.js';
import { ENVIRONMENT as ENVIRONMENT_VARIABLES } from '../../src/reference/environment.js';
import { EXIT_CODE_TABLE } from '../../src/reference/exit-codes.js';
import { run } from '../helpers/cli.js';
import { commandPaths, programTree, visibleNames } from '../helpers/tree.js';

const petsVerbs = () => {
  const pets = programTree().commands.find((command) => command.name() === 'pets');
  return pets ? visibleNames(pets) : [];
};

import { tooWide, words } from '../helpers/wrap.js';

const PATHS = commandPaths();

describe('help', () => {
  it('has every command the contract names', () => {
    // The contract as the project keeps it (docs/cli-contract.md, a copy of what it promises).
    const contract = readFileSync(new URL('../../docs/cli-contract.md', import.meta.url), 'utf8');
    const named = new Set<string>();
    for (const [, words = ''] of contract.matchAll(/`store ((?:[a-z]+ ?)+)/g)) {
      const path = words.trim().split(' ');
      // Only the leading words that are commands: `store pets list --status` → pets list.
      for (let n = path.length; n > 0; n -= 1) {
        const candidate = path.slice(0, n).join(' ');
        // `store help` is a command too (its topics are tested below).
        if (candidate === 'help' || PATHS.some((known) => known.join(' ') === candidate)) {
          named.add(candidate);
          break;
        }
        if (n === 1) named.add(`missing: ${words.trim()}`);
      }
    }
    expect([...named].filter((name) => name.startsWith('missing'))).toEqual([]);
    expect(named.size).toBeGreaterThanOrEqual(15);
  });

  it.each([[[]], ...PATHS.map((path) => [path])])(
    'store %j --help shows usage, the global options and examples on stdout',
    async (path) => {
      const result = await run([...path, '--help']);
      expect(result.code).toBe(0);
      expect(result.stderr).toBe('');
      expect(result.stdout).toMatch(new RegExp(`^Usage: store ${path.join(' ')}`.trimEnd()));
      // Every global option, each on a line of its own (`  -p, --profile <name>  profile…`).
      const listed = Object.values(GLOBAL_FLAGS).filter((flag) =>
        result.stdout.includes(`\n  ${flag.flags}  `),
      );
      expect(listed).toEqual(Object.values(GLOBAL_FLAGS));
      // The first example runs store (perhaps after making a folder for its output).
      expect(result.stdout).toMatch(/\nExamples:\n {2}\$ (mkdir -p \S+ && )?store /);
    },
  );

  it('prints the top-level help on stdout with exit 0 for a bare `store`', async () => {
    const result = await run([]);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: store \[options\] \[command\]\n/);
    expect(result.stderr).toBe('');
  });

  it('treats a noun without a verb as a usage error (help on stderr, exit 2)', async () => {
    const result = await run(['pets']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr).toMatch(/^Usage: store pets \[options\] \[command\]\n/);
  });

  it('shows a command’s help through a noun’s help subcommand with exit 0 (store pets help list)', async () => {
    const result = await run(['pets', 'help', 'list']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(/^Usage: store pets list \[options\]\n/);
    expect(result.stderr).toBe('');
  });
});

describe('version', () => {
  it.each([['-V'], ['--version']])('%s prints the version on stdout, exit 0', async (flag) => {
    const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(await run([flag])).toEqual({
      code: 0,
      stdout: `${pkg.version}\n`,
      stderr: '',
      prompts: [],
    });
  });
});

// The contract's tables (cli-contract.md, "Global options", "Errors and exit codes"), row for
// row: names without their Markdown code marks, meanings verbatim, laid out for 80 columns
// (the width in a pipe, and the test IO's): each variable on its own line, its meaning
// indented and wrapped below; exit codes beside their meanings.
const ENVIRONMENT = `Environment variables

Each applies to the one invocation it is set for.

With a flag (the flag wins):

  STORE_PROFILE  -p, --profile <name>
      profile to use; default: the current profile in the config, else
      \`production\`
  NO_COLOR (non-empty)  --no-color
      no ANSI colour; wins over \`CLICOLOR_FORCE\` and \`FORCE_COLOR\`
  STORE_DEBUG=1  --debug
      trace each HTTP exchange on stderr; the key is shown masked (\`Bearer
      ****wxyz\`)
  STORE_TIMEOUT  --timeout <seconds>
      per-request time limit, default 30

Others:

  STORE_API_KEY
      API key for this invocation; wins over the stored one
  STORE_BASE_URL
      base URL (including \`/v1\`) for this invocation; wins over the profile's
  STORE_MESSAGES_URL
      base URL of the messaging operation; wins over the profile's
  STORE_CONFIG_DIR
      folder that holds \`config.json\`, a full path; default
      \`$XDG_CONFIG_HOME/store\` or \`~/.config/store\` (Linux, macOS)
  STORE_NO_DEPRECATION_WARNINGS=1
      no deprecation warnings on stderr (\`pets get\`, API responses marked
      deprecated)
  CLICOLOR=0
      no ANSI colour on a terminal either
  CLICOLOR_FORCE=1, FORCE_COLOR=1
      ANSI colour even when the output is not a terminal (a pipe, a file)
  COLUMNS
      width of the terminal in columns, for tables and help; wins over the
      terminal's own width
  HTTPS_PROXY, HTTP_PROXY, NO_PROXY (and lower-case forms)
      honoured for every request

Precedence, highest first: flag, environment variable, profile in config,
built-in default.

Examples:
  $ STORE_PROFILE=staging store pets list
  $ STORE_API_KEY="$KEY" STORE_BASE_URL=http://127.0.0.1:4010/v1 store orders \\
      list
  $ NO_COLOR=1 store profile list
`;

const EXIT_CODES = `Exit codes

  0    success (an empty list is a success)
  1    any other failure: unexpected status or response shape, unreadable
       config, internal error
  2    usage: unknown command or flag, missing or invalid argument or flag
       value, refused configuration — nothing was sent
  3    the API rejected the input (HTTP 400, and other 4xx not listed here)
  4    authentication missing or rejected (no key, HTTP 401 or 403)
  5    not found (HTTP 404)
  6    network: connection refused or reset, DNS, TLS, timeout
  7    service unavailable: HTTP 5xx or 429, after retries
  130  interrupted (Ctrl-C): ended by the signal, which a shell reports as 130

\`pets add --file\` exits 0 only when every object was created; otherwise with the
code of the first failure in input order, after reporting every one. An object
that fails the client's own validation is not sent and counts as rejected input
(exit 3); a file that is not JSON/NDJSON at all is a usage error (exit 2) and
nothing is sent.

Examples:
  $ store pets get 42 || echo "failed with exit $?"
  $ store auth status >/dev/null 2>&1 || store auth login
`;

const FORMATTING = `Output formats

Results go to stdout; warnings, progress and errors go to stderr, so a pipe
carries data only. The same command prints one of three forms:

Table (stdout is a terminal)
  Aligned columns with a header, the status in colour, text cut to fit the
  terminal (identifiers never are). Made for reading: do not parse it.

Tab-separated (stdout is a pipe or a file, no --json)
  A header line, then one line per row, the fields separated by one tab: no
  borders, no truncation, and no colour unless asked for. A tab, a newline or
  another control character inside a value is shown escaped (\\t, \\n, \\x1b), and
  a backslash as \\\\, so a row is one line and every value reads back.

JSON (--json)
  One JSON document on stdout: an array for a list, an object for one item,
  exactly the API's data, fields the client does not know included and ids above
  2^53 digit for digit. Indented on a terminal, one line otherwise. \`pets add
  --file --json\` prints one JSON object per input object instead (NDJSON): the
  created animal, or {"input": n, "error": {code, message, status}} for the n-th
  one that was not created.

Fields (--json FIELDS)
  --json id,name keeps only those keys of each object, in that order (a key an
  object lacks is null). Each command's --help lists its fields, and the shells
  complete them; a name that is not one is exit 2, nothing sent. Where the word
  after --json could also be the command's argument, it is the argument unless
  another word follows for it; --json=FIELDS is never read as anything else.
  \`store help --json\` describes every command, its flags and fields for a
  program.

jq (--jq EXPRESSION)
  The JSON filtered by jq's own language, built in (no jq needed): each result
  on its own line, strings as their text (jq -r), anything else as JSON, ids
  above 2^53 exact. It implies --json. An expression that does not compile is
  exit 2 with jq's message and nothing sent; an error while filtering is exit 1
  with jq's message and nothing on stdout. $ENV and env are the environment, as
  in jq, but for STORE_API_KEY (only \`store auth token\` prints the key): a
  script passes values that way (NAME=Rex store pets list --jq '.[] |
  select(.name == $ENV.NAME)'). Not for \`pets add --file\` (one line per input):
  pipe that to jq.

Colour
  Only on a terminal, unless asked for: NO_COLOR (non-empty) or --no-color turn
  it off, CLICOLOR=0 on a terminal too; CLICOLOR_FORCE=1 or FORCE_COLOR=1 turn
  it on in a pipe. JSON is never coloured.

On failure stdout is empty (except for \`pets add --file\`) and stderr has one
line:
  error: <message> (<code>, HTTP <status>)
or, with --json or --jq:
  {"error":{"code":…,"message":…,"status":…}}
The exit code tells the kind of failure: see \`store help exit-codes\`.

Examples:
  $ store pets list --status available | tail -n +2 | cut -f2
  $ store pets list | awk -F'\\t' 'NR > 1 && $4 == "sold" { print $1 }'
  $ store pets list --json id,name
  $ store pets list --jq '.[] | select(.status == "sold") | .name'
  $ store pets list --jq 'map(.id) | max'
  $ store help --jq '.commands[].path'
  $ store pets add --file animals.ndjson --json > results.ndjson
`;

describe('store help <topic>', () => {
  it.each([
    ['environment', ENVIRONMENT],
    ['exit-codes', EXIT_CODES],
    ['formatting', FORMATTING],
  ])('store help %s prints the topic on stdout, exit 0', async (topic, text) => {
    expect(await run(['help', topic])).toEqual({ code: 0, stdout: text, stderr: '', prompts: [] });
  });

  it('lists the topics at the end of `store --help`', async () => {
    const result = await run(['--help']);
    expect(result.code).toBe(0);
    expect(result.stdout).toMatch(
      /\n\nHelp topics:\n {2}store help environment {2}environment variables, and which setting wins\n {2}store help exit-codes {3}what each exit code means\n {2}store help formatting {3}table, tab-separated and JSON output, for scripts\n\n$/,
    );
  });

  it.each([
    [[], ['--help']],
    [['pets'], ['pets', '--help']],
    [
      ['pets', 'list'],
      ['pets', 'list', '--help'],
    ],
    [
      ['profile', 'use'],
      ['profile', 'use', '--help'],
    ],
  ])('store help %j prints what --help prints, exit 0', async (names, flag) => {
    const expected = await run(flag);
    expect(expected.stdout).toMatch(/^Usage: store /);
    expect(await run(['help', ...names])).toEqual({ ...expected, code: 0 });
  });

  it.each([
    ['envirnment', 'unknown help topic "envirnment" (did you mean "environment"?)'],
    ['exit', 'unknown help topic "exit" (did you mean "exit-codes"?)'],
    ['formating', 'unknown help topic "formating" (did you mean "formatting"?)'],
    ['pest', 'unknown help topic "pest" (did you mean "pets"?)'],
    [
      'colours',
      `unknown help topic "colours"; topics: environment, exit-codes, formatting; commands: ${visibleNames().join(', ')}`,
    ],
  ])('store help %s: exit 2 with a suggestion when one is close', async (name, message) => {
    expect(await run(['help', name])).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: ${message}\n`,
      prompts: [],
    });
  });

  it.each([
    [['environment', 'extra'], 'help topic environment takes no more words (got "extra")'],
    [['pets', 'list', 'extra'], 'pets list has no subcommands (got "extra")'],
    [['auth', 'login', 'a', 'b'], 'auth login has no subcommands (got "a b")'],
    // Not properties of every object: no TypeError from `in`.
    [
      ['toString'],
      `unknown help topic "toString"; topics: environment, exit-codes, formatting; commands: ${visibleNames().join(', ')}`,
    ],
  ])('store help %j: exit 2, saying what is wrong', async (names, message) => {
    expect(await run(['help', ...names])).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: ${message}\n`,
      prompts: [],
    });
  });

  it('suggests the closest subcommand for an unknown one', async () => {
    expect(await run(['help', 'pets', 'lst'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: unknown command "pets lst" (did you mean "pets list"?)\n',
      prompts: [],
    });
    expect(await run(['help', 'pets', 'feed'])).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: unknown command "pets feed"; commands of pets: ${petsVerbs().join(', ')}\n`,
      prompts: [],
    });
  });

  it("names the word under a noun's help that is no command (store pets help bogus)", async () => {
    expect(await run(['pets', 'help', 'bogus'])).toEqual({
      code: 2,
      stdout: '',
      stderr: `error: unknown command "bogus"; commands of store pets: ${petsVerbs().join(', ')}\n`,
      prompts: [],
    });
    expect(await run(['pets', 'help', 'lst'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: unknown command "lst" (did you mean "list"?)\n',
      prompts: [],
    });
  });

  it('says what a command takes when it gets extra arguments', async () => {
    expect(await run(['pets', 'list', 'extra', 'more'])).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: store pets list takes no arguments (got "extra", "more")\nhint: see `store pets list --help`\n',
      prompts: [],
    });
    expect(await run(['pets', 'get', '1', '2'])).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'error: store pets get takes 1 argument (got 2: "1", "2")\nhint: see `store pets get --help`\n',
      prompts: [],
    });
  });

  it('keeps commander\'s "did you mean" for an unknown command', async () => {
    expect(await run(['hlep'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: unknown command "hlep" (did you mean "help"?)\n',
      prompts: [],
    });
    expect(await run(['pets', 'lst'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'error: unknown command "lst" (did you mean "list"?)\n',
      prompts: [],
    });
  });
});

describe('store help <topic> at any width', () => {
  it.each(HELP_TOPIC_NAMES)(
    '%s wraps at word boundaries to 40, 60 and 200 columns',
    async (topic) => {
      const at80 = await run(['help', topic]);
      for (const columns of [40, 60, 200]) {
        const result = await run(['help', topic], { columns });
        expect(result.code).toBe(0);
        expect(tooWide(result.stdout, columns), `${topic} at ${columns}`).toEqual([]);
        // The same words in the same order: nothing lost, nothing cut mid-word.
        expect(words(result.stdout)).toEqual(words(at80.stdout));
      }
    },
  );

  it('has one line per meaning at 200 columns, as the reference tables give them', async () => {
    const wide = (await run(['help', 'environment'], { columns: 200 })).stdout;
    for (const v of ENVIRONMENT_VARIABLES) {
      expect(wide).toContain(`\n      ${v.meaning}\n`);
    }
    const codes = (await run(['help', 'exit-codes'], { columns: 200 })).stdout;
    for (const e of EXIT_CODE_TABLE) {
      expect(codes).toContain(`\n  ${String(e.code).padEnd(3)}  ${e.meaning}\n`);
    }
  });

  it('at 40 columns puts each meaning under its variable, wrapped', async () => {
    const result = await run(['help', 'environment'], { columns: 40 });
    expect(result.stdout).toContain(
      '  STORE_PROFILE  -p, --profile <name>\n' +
        '      profile to use; default: the\n' +
        '      current profile in the config,\n' +
        '      else `production`\n',
    );
    expect(result.stdout).toContain(
      '  $ STORE_API_KEY="$KEY" \\\n' +
        '      STORE_BASE_URL=http://127.0.0.1:4010/v1 \\\n' +
        '      store orders list\n',
    );
  });
});

it('wraps the JSON fields heading of a command’s help on a narrow terminal', async () => {
  const result = await run(['pets', 'list', '--help'], { columns: 30 });
  expect(result.stdout).toContain(
    '\nJSON fields (--json FIELDS,\n--jq):\n  id, name, categoryId, status\n',
  );
});
