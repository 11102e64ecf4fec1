// Types of scripts/sbom.js for its test (test/package/release.test.ts).
export function makeSbom(options: {
  root: string;
  epoch: string;
  nodes: { name: string; version: string; license: string; integrity: string; files: string[] }[];
  npmFiles: string[];
  binaryFiles: string[];
}): {
  bomFormat: string;
  specVersion: string;
  serialNumber: string;
  metadata: { timestamp: string; component: Record<string, unknown> };
  components: Record<string, unknown>[];
  dependencies: { ref: string; dependsOn: string[] }[];
};
