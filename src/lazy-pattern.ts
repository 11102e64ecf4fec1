// V8 parses a regular expression as it makes it (a literal, each time its module loads), and a
// Unicode property class in it (`\p{Mn}`, `\p{Extended_Pictographic}`) has ICU build that
// class's set of code points then: ≈0.1–0.5 ms each, in every process that loads the module,
// whether the expression is used or not (most runs meet only ASCII).

/** A regular expression made at its first use. */
export function lazyPattern(make: () => RegExp): () => RegExp {
  let made: RegExp | undefined;
  return () => {
    made ??= make();
    return made;
  };
}
