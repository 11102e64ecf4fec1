// Why a file could not be opened, read or written, in words: "no such file or directory",
// "permission denied", as the system says them, never an errno name alone (ENOENT).
const { getSystemErrorMessage } = process.getBuiltinModule('node:util');

/** `no such file or directory`: the system's words for `error`, in lower case. */
export function fileProblem(error: unknown): string {
  const failure = error as Partial<NodeJS.ErrnoException> | null;
  let text: string | undefined;
  if (typeof failure?.errno === 'number') {
    try {
      text = getSystemErrorMessage(failure.errno);
    } catch {
      // Not a system error number: the message below.
    }
  }
  text ??= failure?.message ?? String(error);
  return text.charAt(0).toLowerCase() + text.slice(1);
}
