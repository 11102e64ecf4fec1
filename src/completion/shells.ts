/** The shells `store completion` writes scripts for. */
export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** Where each script is committed, under completions/ (and shipped in the package). */
export const SCRIPT_FILES: Readonly<Record<Shell, string>> = {
  bash: 'store.bash',
  zsh: '_store',
  fish: 'store.fish',
};
