// What a test made and must undo (temp folders, servers, processes). Helpers register the undo
// here; test/setup.ts runs it after every test. No helper registers vitest hooks of its own: a
// module evaluated once per worker (isolate: false) would hook only the first file that loads it.
const undos: (() => unknown)[] = [];

/** Runs `undo` after the current test, whether it passed or not. */
export function afterThisTest(undo: () => unknown): void {
  undos.push(undo);
}

/** Undoes in reverse order of making; called by test/setup.ts. */
export async function undoAll(): Promise<void> {
  for (const undo of undos.splice(0).reverse()) await undo();
}
