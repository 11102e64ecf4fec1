// The shared prompter (src/ask.ts): questions only at a terminal, --yes off one, the profile a
// write goes to said before the first question, a bad answer asked again.
import { describe, expect, it } from 'vitest';
import { asker, yesOrNo } from '../src/ask.js';
import { FlagError } from '../src/errors.js';
import { type RunOptions, testIO } from './helpers/cli.js';

function prompterFor(options: RunOptions) {
  const { io, err, prompts } = testIO(options, {});
  let announced = 0;
  const prompter = asker(io, new AbortController().signal, async () => {
    // As the context's: said once per invocation, however often asked.
    if (announced++ === 0) io.err('Using profile staging (https://staging.example/v1)\n');
  });
  return { prompter, err, prompts, announced: () => announced };
}

describe('confirm', () => {
  it('asks at a terminal, after saying where the change goes; y is yes, Enter is no', async () => {
    const yes = prompterFor({ tty: true, answers: ['y'] });
    expect(await yes.prompter.confirm('Delete animal 7?', false)).toBe(true);
    expect(yes.prompts).toEqual(['Delete animal 7? (y/N) ']);
    expect(yes.err.text).toBe('Using profile staging (https://staging.example/v1)\n');
    const no = prompterFor({ tty: true, answers: [''] });
    expect(await no.prompter.confirm('Delete animal 7?', false)).toBe(false);
  });

  it('asks again after an answer that is neither yes nor no', async () => {
    const { prompter, prompts, err } = prompterFor({ tty: true, answers: ['maybe', 'NO'] });
    expect(await prompter.confirm('Delete animal 7?', false)).toBe(false);
    expect(prompts).toEqual(['Delete animal 7? (y/N) ', 'Delete animal 7? (y/N) ']);
    expect(err.text).toBe('Using profile staging (https://staging.example/v1)\nanswer y or n\n');
  });

  it('takes --yes for the answer, asking nothing, at a terminal or not', async () => {
    for (const tty of [true, false]) {
      const { prompter, prompts, announced } = prompterFor({ tty });
      expect(await prompter.confirm('Delete animal 7?', true)).toBe(true);
      expect(prompts).toEqual([]);
      expect(announced()).toBe(0);
    }
  });

  it.each([
    ['stdin is not a terminal', { stdin: false, stderr: true }],
    ['stderr is not a terminal', { stdin: true, stderr: false }],
  ])('off a terminal (%s) refuses without --yes, asking nothing', async (_what, tty) => {
    const { prompter, prompts } = prompterFor({ tty });
    expect(prompter.canAsk).toBe(false);
    await expect(prompter.confirm('Delete animal 7?', false)).rejects.toEqual(
      new FlagError('--yes is required when store is not run at a terminal; nothing was changed'),
    );
    expect(prompts).toEqual([]);
  });
});

describe('ask', () => {
  it('says where the answers go once, then asks until the answer parses', async () => {
    const { prompter, prompts, err, announced } = prompterFor({
      tty: true,
      answers: ['x', '7', 'Rex'],
    });
    const parse = (text: string) => {
      if (!/^\d+$/.test(text)) throw new FlagError(`not a number: ${text}`);
      return Number(text);
    };
    expect(await prompter.ask('Id: ', parse)).toBe(7);
    expect(await prompter.ask('Name: ', (text) => text)).toBe('Rex');
    expect(prompts).toEqual(['Id: ', 'Id: ', 'Name: ']);
    expect(err.text).toBe('Using profile staging (https://staging.example/v1)\nnot a number: x\n');
    // The context's announcement prints at most once; the prompter asks for it before each.
    expect(announced()).toBe(2);
  });
});

it('yesOrNo reads y, yes, n, no and Enter in any case', () => {
  expect(['y', 'YES', ' yes '].map(yesOrNo)).toEqual([true, true, true]);
  expect(['', 'n', 'No'].map(yesOrNo)).toEqual([false, false, false]);
  expect(() => yesOrNo('sure')).toThrow('answer y or n');
});
