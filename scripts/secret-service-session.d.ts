// Types of scripts/secret-service-session.js for test/e2e/keyring.test.ts.
export function missingTools(tools: string[]): string[];
export function startSecretService(folders: {
  home: string;
  runtime: string;
}): Promise<{ address: string; stop(): Promise<void> }>;
