// The one way the program changes V8's flags while it runs. V8 stamps a code cache with the
// flags in force when it is made and refuses it under others: bin/store.js (which makes the
// caches, at exit) reads the mark set here and writes none for a run whose flags changed.

/** The global bin/store.js reads; a symbol from the registry, as the two share no module. */
export const V8_FLAGS_CHANGED = Symbol.for('store.v8FlagsChanged');

export function setV8Flags(flags: string): void {
  process.getBuiltinModule('node:v8').setFlagsFromString(flags);
  (globalThis as Record<symbol, unknown>)[V8_FLAGS_CHANGED] = true;
}
