// A throwaway self-signed certificate, made with openssl for one test file and removed after
// it: trusted by nobody unless a test gives it in NODE_EXTRA_CA_CERTS.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';

export interface Certificate {
  /** Where the certificate is, for NODE_EXTRA_CA_CERTS. */
  readonly certFile: string;
  readonly key: Buffer;
  readonly cert: Buffer;
}

/** A certificate for `subject` (`/CN=api.proxy.test`) naming `altName` (`DNS:api.proxy.test`,
 * `IP:127.0.0.1`), made before the file's tests and removed after them; read it inside a test. */
export function selfSignedCertificate(subject: string, altName: string): Certificate {
  let dir = '';
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'store-cert-'));
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'rsa:2048',
        '-nodes',
        '-days',
        '1',
        '-subj',
        subject,
        '-addext',
        `subjectAltName=${altName}`,
        '-keyout',
        join(dir, 'key.pem'),
        '-out',
        join(dir, 'cert.pem'),
      ],
      { stdio: 'ignore' },
    );
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  return {
    get certFile() {
      return join(dir, 'cert.pem');
    },
    get key() {
      return readFileSync(join(dir, 'key.pem'));
    },
    get cert() {
      return readFileSync(join(dir, 'cert.pem'));
    },
  };
}
