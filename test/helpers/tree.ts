// The command tree as the program builds it: tests read the commands from here instead of
// keeping their own lists, so a new command needs no test edited to be covered.
import type { Command } from 'commander';
import { buildProgram, loadCommands } from '../../src/program.js';
import { testIO } from './cli.js';

/** Every command, loaded once for the tests that read the tree. */
export const ALL_COMMANDS = await loadCommands();

/** A fresh program with every command (tests may add to it). */
export function programTree(): Command {
  return buildProgram(
    testIO({}, {}).io,
    () => {
      throw new Error('no command runs while reading the tree');
    },
    ALL_COMMANDS,
  );
}

/** The visible subcommands of a command, in the order --help lists them (`help` left out). */
export function visibleNames(command: Command = programTree()): string[] {
  return command
    .createHelp()
    .visibleCommands(command)
    .map((sub) => sub.name())
    .filter((name) => name !== 'help');
}

/** Every visible command's words, depth first: [['pets'], ['pets', 'list'], …]. */
export function commandPaths(command: Command = programTree(), prefix: string[] = []): string[][] {
  return command
    .createHelp()
    .visibleCommands(command)
    .filter((sub) => sub.name() !== 'help')
    .flatMap((sub) => {
      const path = [...prefix, sub.name()];
      return [path, ...commandPaths(sub, path)];
    });
}
