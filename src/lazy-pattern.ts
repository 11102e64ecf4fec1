// V8 parses a regular expression as it makes it (a literal, each time its module loads), and a
// Unicode property class in it (`\p{Mn}`, `\p{Extended_Pictographic}`) has ICU build that
// class's set of code points then, in every process that loads the module,
// whether the expression is used or not (most runs meet only ASCII). So such an expression is
// made at its first use, and behind a test for plain ASCII where that is the usual text.

/** A regular expression made at its first use. */
export function lazyPattern(make: () => RegExp): () => RegExp {
  let made: RegExp | undefined;
  return () => {
    made ??= make();
    return made;
  };
}

/** Printable ASCII only: the space to the tilde (no control character, nothing wide). */
export const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
