/** The process's environment, or a test's: read, never written. */
export type Env = Readonly<Record<string, string | undefined>>;
