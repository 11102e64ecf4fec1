// commander's Command with store's voice: the usage errors commander finds itself (a missing
// or extra argument, an unknown flag or command, a flag without its value) are told as every
// other error of store is, through the hooks commander calls for each, not by rewriting the
// text it would have printed. Every subcommand is one too (createCommand).
import { Command, type HelpContext, type Option } from 'commander';
import { quote } from '../config/quote.js';
import { FlagError, withHint } from '../errors.js';
import { didYouMean } from './help/suggest.js';
import { missingValueMessage } from './missing-value.js';

export class StoreCommand extends Command {
  override createCommand(name?: string): Command {
    return new StoreCommand(name);
  }

  /** `store pets get`: the words typed to reach this command. */
  private words(): string {
    const names: string[] = [];
    for (let at: Command | null = this; at; at = at.parent) names.unshift(at.name());
    return names.join(' ');
  }

  private helpHint(error: FlagError): FlagError {
    return withHint(error, `see \`${this.words()} --help\``);
  }

  // The methods below are the hooks commander's parser calls for each usage error it finds.

  missingArgument(name: string): never {
    throw this.helpHint(new FlagError(`${this.words()} needs <${name}>`));
  }

  optionMissingArgument(option: Option): never {
    const name = option.long ?? option.short ?? option.flags;
    throw new FlagError(missingValueMessage(option.flags) ?? `${name} needs a value`);
  }

  missingMandatoryOptionValue(option: Option): never {
    throw this.helpHint(new FlagError(`${option.long ?? option.flags} is required`));
  }

  unknownOption(flag: string): never {
    // The flags of this command and of those above it (the global ones), as commander offers.
    const known: string[] = [];
    for (let at: Command | null = this; at; at = at.parent) {
      for (const option of at.createHelp().visibleOptions(at)) {
        if (option.long) known.push(option.long);
      }
    }
    const meant = flag.startsWith('--') ? didYouMean(flag, known) : '';
    const error = new FlagError(`unknown option ${quote(flag)}${meant}`);
    throw meant ? error : this.helpHint(error);
  }

  /** `store pets help bogus`: commander shows the noun's help as an error, with no word of
   * why; the name that is no command is said instead. */
  override help(context?: HelpContext | ((text: string) => string)): never {
    const [word, name] = this.args;
    const known = this.commands.some((command) => command.name() === name);
    const error = typeof context === 'object' && context.error;
    if (error && word === 'help' && name !== undefined && !known) this.unknownCommand(name);
    return super.help(context as HelpContext);
  }

  unknownCommand(typed = this.args[0] ?? ''): never {
    const all = this.createHelp()
      .visibleCommands(this)
      .map((command) => command.name());
    const names = all.filter((name) => name !== 'help');
    const meant = didYouMean(typed, all);
    throw new FlagError(
      meant
        ? `unknown command ${quote(typed)}${meant}`
        : `unknown command ${quote(typed)}; commands${this.parent ? ` of ${this.words()}` : ''}: ${names.join(', ')}`,
    );
  }

  /** commander's public way out for every usage error: an extra argument (known by its
   * code, never by its text) is told in store's words; the others come through the hooks above. */
  override error(message: string, options?: { exitCode?: number; code?: string }): never {
    if (options?.code === 'commander.excessArguments') throw this.excessArguments(this.args);
    return super.error(message, options);
  }

  private excessArguments(received: readonly string[]): FlagError {
    const expected = this.registeredArguments.length;
    const takes =
      expected === 0
        ? 'takes no arguments'
        : `takes ${expected} argument${expected === 1 ? '' : 's'}`;
    const got = received.map(quote).join(', ');
    return this.helpHint(
      new FlagError(
        `${this.words()} ${takes} (got ${expected === 0 ? got : `${received.length}: ${got}`})`,
      ),
    );
  }
}
