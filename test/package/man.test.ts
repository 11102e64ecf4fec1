// man/store.1 is generated from the program (npm run man); the committed page must be the
// generated one, and a command added to the program must appear with no change to the generator.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { completionModel } from '../../src/completion/model.js';
import { manPage, storeManPage } from '../../src/man/page.js';
import { ENVIRONMENT } from '../../src/reference/environment.js';
import { EXIT_CODE_TABLE } from '../../src/reference/exit-codes.js';
import { tempDir } from '../helpers/cli.js';
import { programTree } from '../helpers/tree.js';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const COMMITTED = readFileSync(join(ROOT, 'man', 'store.1'), 'utf8');

const program = programTree;

describe('store.1', () => {
  it('is the committed man/store.1 (on failure: npm run man)', async () => {
    expect(await storeManPage()).toBe(COMMITTED);
  });

  it('is what npm run man writes', () => {
    const file = join(tempDir(), 'store.1');
    const result = spawnSync(process.execPath, [join(ROOT, 'scripts/man.js'), file], {
      encoding: 'utf8',
    });
    expect(result).toMatchObject({ status: 0, stderr: '', stdout: `wrote ${file}\n` });
    expect(readFileSync(file, 'utf8')).toBe(COMMITTED);
  });

  it('has every command, global option, environment variable and exit code', () => {
    const page = manPage(program());
    const model = completionModel(program());
    for (const command of model.commands.slice(1)) {
      expect(page).toContain(`.SS "store ${command.path.join(' ')} `);
    }
    expect(page).toContain(
      '.SH OPTIONS\n.TP\n\\fB\\-V\\fR, \\fB\\-\\-version\\fR\nprint the version\n.TP\n\\fB\\-p\\fR, \\fB\\-\\-profile\\fR \\fI<name>\\fR\n',
    );
    for (const variable of ENVIRONMENT) {
      expect(page).toContain(`.TP\n.B ${variable.name.replace(/-/g, '\\-')}\n`);
    }
    for (const { code } of EXIT_CODE_TABLE) expect(page).toContain(`.TP\n.B ${code}\n`);
  });

  it('picks up a new command, its arguments and flags with no change to the generator', () => {
    const extended = program();
    // As commands are registered: .command() inherits the program's settings.
    extended
      .command('zoo')
      .description('Feed the animals')
      .argument('<animal>', 'the one to feed')
      .option('--food <kind>', 'what to feed')
      .option('--quiet', 'say nothing');
    const page = manPage(extended);
    expect(page).toContain(
      [
        '.SS "store zoo \\fI[options]\\fR \\fI<animal>\\fR"',
        'Feed the animals',
        '.TP',
        '\\fIanimal\\fR',
        'the one to feed',
        '.TP',
        '\\fB\\-\\-food\\fR \\fI<kind>\\fR',
        'what to feed',
        '.TP',
        '\\fB\\-\\-quiet\\fR',
        'say nothing',
        '.SH OPTIONS',
      ].join('\n'),
    );
  });
});
