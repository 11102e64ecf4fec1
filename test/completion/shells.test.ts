// The committed completion scripts, loaded into real bash, zsh and fish, asked for the
// completions of a command line. `store` on their PATH runs this checkout's bin/store.js, so
// profile names come from `store __complete profiles` as they do for a user.
import { spawn, spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HELP_TOPIC_NAMES } from '../../src/commands/help/topics.js';
import { SCRIPT_FILES, type Shell } from '../../src/completion/shells.js';
import { tempDir } from '../helpers/cli.js';
import { BIN, collect, processEnv } from '../helpers/process.js';
import { programTree, visibleNames } from '../helpers/tree.js';

const COMPLETIONS = fileURLToPath(new URL('../../completions/', import.meta.url));
const ZSH_CAPTURE = fileURLToPath(new URL('./zsh-capture.zsh', import.meta.url));
let dumpDir = '';
let zshDump = '';

/** How each shell is asked: the script loaded, then the completions of `line`, one per line. */
const ASK: Record<Shell, (line: string) => string[]> = {
  // Sets what bash sets before calling a completion function (splitting at blanks only:
  // the lines below have no quotes or "="), then prints COMPREPLY.
  bash: (line) => [
    '--norc',
    '--noprofile',
    '-c',
    `source "$1"
     read -ra COMP_WORDS <<< "$2"
     [[ $2 == *' ' ]] && COMP_WORDS+=('')
     COMP_LINE=$2 COMP_POINT=\${#2} COMP_CWORD=$((\${#COMP_WORDS[@]} - 1))
     _store
     printf '%s\\n' "\${COMPREPLY[@]}"`,
    'bash',
    join(COMPLETIONS, SCRIPT_FILES.bash),
    line,
  ],
  // The script is found on $fpath by compinit, as the README installs it.
  zsh: (line) => ['-f', ZSH_CAPTURE, COMPLETIONS, line, zshDump],
  // fish prints "word<TAB>description" lines.
  fish: (line) => [
    '--no-config',
    '-c',
    'source $argv[1]; complete -C $argv[2]',
    join(COMPLETIONS, SCRIPT_FILES.fish),
    line,
  ],
};

const installed = (shell: Shell) => spawnSync('sh', ['-c', `command -v ${shell}`]).status === 0;
/** Shells missing here: their tests are skipped, named in the output, except under CI. */
const MISSING = (Object.keys(ASK) as Shell[]).filter((shell) => !installed(shell));
if (MISSING.length > 0 && process.env.CI) {
  throw new Error(`these tests need ${MISSING.join(', ')} installed (see .ci/run)`);
}
for (const shell of MISSING) {
  console.warn(`skipping the ${shell} completion tests: ${shell} is not installed`);
}

beforeAll(() => {
  if (MISSING.includes('zsh')) return;
  // compinit's dump of the completion functions on $fpath (completions/ first), as a user's
  // first compinit writes ~/.zcompdump; every zsh below loads it instead of scanning again.
  dumpDir = mkdtempSync(join(tmpdir(), 'store-zsh-'));
  zshDump = join(dumpDir, 'zcompdump');
  spawnSync('zsh', [
    '-f',
    '-c',
    'fpath=($1 $fpath); autoload -Uz compinit && compinit -u -d $2',
    'zsh',
    COMPLETIONS,
    zshDump,
  ]);
});

afterAll(() => {
  if (dumpDir) rmSync(dumpDir, { recursive: true, force: true });
});

/** A `store` on PATH, two user profiles (and `more`), and a folder with two files to complete. */
function setup(more: Record<string, object> = {}): { env: NodeJS.ProcessEnv; cwd: string } {
  const bin = tempDir();
  const store = join(bin, 'store');
  writeFileSync(store, `#!/bin/sh\nexec "${process.execPath}" "${BIN}" "$@"\n`);
  chmodSync(store, 0o755);
  const config = tempDir();
  writeFileSync(
    join(config, 'config.json'),
    JSON.stringify({
      profiles: { eu: { baseUrl: 'https://eu.example/v1' }, 'team-b': {}, ...more },
    }),
  );
  const cwd = tempDir();
  writeFileSync(join(cwd, 'animals.json'), '{}');
  writeFileSync(join(cwd, 'more.ndjson'), '{}');
  const home = tempDir();
  // fish keeps its history and variables under the home and XDG folders.
  mkdirSync(join(home, '.config'));
  const env = processEnv({
    PATH: `${bin}:${process.env.PATH}`,
    STORE_CONFIG_DIR: config,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    TERM: 'dumb',
  });
  return { env, cwd };
}

async function complete(
  shell: Shell,
  line: string,
  profiles?: Record<string, object>,
): Promise<{ code: number | null; words: string[] }> {
  const { env, cwd } = setup(profiles);
  const child = spawn(shell, ASK[shell](line), {
    cwd,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    timeout: 15_000,
  });
  const result = await collect(child);
  expect(result.stderr).toBe('');
  const words = result.stdout
    .split('\n')
    .filter((text) => text !== '')
    .map((text) => text.split('\t')[0] as string);
  return { code: result.code, words: words.sort() };
}

const TOP_LEVEL = visibleNames();
const PETS_VERBS = visibleNames(
  programTree().commands.find((command) => command.name() === 'pets'),
);

const CASES: [string, string[]][] = [
  ['store ', [...TOP_LEVEL, 'help'].sort()],
  ['store pets ', [...PETS_VERBS, 'help'].sort()],
  ['store pets list --status ', ['available', 'pending', 'sold']],
  ['store pets list --status p', ['pending']],
  ['store -p ', ['eu', 'production', 'sandbox', 'staging', 'team-b']],
  ['store pets list --profile s', ['sandbox', 'staging']],
  ['store profile use ', ['eu', 'production', 'sandbox', 'staging', 'team-b']],
  ['store pets add --file ', ['animals.json', 'more.ndjson']],
  [
    'store pets list --',
    [
      '--debug',
      '--help',
      '--jq',
      '--json',
      '--limit',
      '--no-color',
      '--profile',
      '--status',
      '--timeout',
      '--version',
    ],
  ],
  ['store --timeout 5 pets l', ['list']],
  ['store completion ', ['bash', 'fish', 'zsh']],
  ['store help ', [...TOP_LEVEL, ...HELP_TOPIC_NAMES].sort()],
  ['store pets list --limit ', []],
  // A flag before the positional is not the positional: after --json, its fields or the
  // argument (src/commands/json-flag.ts reads the word as either).
  [
    'store profile use --json ',
    ['current', 'eu', 'overriddenBy', 'production', 'profile', 'sandbox', 'staging', 'team-b'],
  ],
  ['store pets list --json ', ['categoryId', 'id', 'name', 'status']],
  ['store pets list --json n', ['name']],
  ['store --json pets l', ['list']],
  ['store pets list --jq ', []],
  // After `help` under a noun: its commands, not the help topics.
  ['store pets help ', [...PETS_VERBS].sort()],
  // `store help` takes a command's path: after a noun, its commands; nothing after a verb.
  ['store help pets ', [...PETS_VERBS].sort()],
  ['store help pets l', ['list']],
  ['store help pets list ', []],
  ['store help exit-codes ', []],
];

/** Fields after a comma: bash and fish offer the whole word, zsh the part after the comma. */
const AFTER_COMMA: Record<Shell, [string, string[]][]> = {
  bash: [
    ['store pets list --json id,', ['id,categoryId', 'id,id', 'id,name', 'id,status']],
    ['store messages send --json id,c', ['id,createdAt']],
  ],
  zsh: [
    ['store pets list --json id,', ['categoryId', 'id', 'name', 'status']],
    ['store messages send --json id,c', ['createdAt']],
  ],
  fish: [
    ['store pets list --json id,', ['id,categoryId', 'id,id', 'id,name', 'id,status']],
    ['store messages send --json id,c', ['id,createdAt']],
  ],
};

/** `--flag=value`, as each shell offers it (bash splits the line at `=` itself: not here). */
const WITH_EQUALS: Record<'zsh' | 'fish', [string, string[]][]> = {
  zsh: [
    ['store pets list --status=p', ['pending']],
    ['store -p=s', ['sandbox', 'staging']],
    ['store --profile=s', ['sandbox', 'staging']],
    ['store pets list --json=id,', ['categoryId', 'id', 'name', 'status']],
    ['store pets list --json=', ['categoryId', 'id', 'name', 'status']],
  ],
  fish: [
    ['store pets list --status=p', ['--status=pending']],
    ['store --profile=s', ['--profile=sandbox', '--profile=staging']],
    ['store pets list --json=id,n', ['--json=id,name']],
    ['store pets list --json=c', ['--json=categoryId']],
  ],
};

for (const shell of ['bash', 'zsh', 'fish'] as const) {
  const missing = MISSING.includes(shell);
  const title = missing
    ? `${shell} completion (skipped: ${shell} is not installed)`
    : `${shell} completion`;
  describe.skipIf(missing)(title, () => {
    it.each([...CASES, ...AFTER_COMMA[shell]])('completes %j', async (line, expected) => {
      expect(await complete(shell, line)).toEqual({ code: 0, words: expected });
    });
    if (shell !== 'bash') {
      it.each(WITH_EQUALS[shell])('completes %j', async (line, expected) => {
        expect(await complete(shell, line)).toEqual({ code: 0, words: expected });
      });
    }
  });
}

// `profile set` refuses such names, but a config.json written by hand may hold them.
describe.skipIf(MISSING.includes('bash'))('bash completion of odd profile names', () => {
  const odd = { 'my prof': {}, "o'q": {}, $HOME: {} };
  it.each([
    ['store -p m', ['my\\ prof']],
    ['store -p o', ["o\\'q"]],
    ['store -p $', ['\\$HOME']],
    // After an opening quote readline puts the reply inside the quotes and closes them: it was
    // `'my\ prof'`, a name with a backslash in it.
    ["store -p 'm", ['my prof']],
    ["store -p 'o", ["o'\\''q"]],
    ['store -p "m', ['my prof']],
    ['store -p "o', ["o'q"]],
    ['store -p "$', ['\\$HOME']],
  ])('offers %j quoted as bash must read it', async (line, expected) => {
    expect(await complete('bash', line, odd)).toEqual({ code: 0, words: expected });
  });
});
