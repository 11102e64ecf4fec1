// Network and TLS failures in words, with a hint where one helps; never a library's raw code
// as the message (#30, 10).
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { networkError } from '../../src/api/errors.js';
import { mayHaveActed, NetworkError, ResponseError } from '../../src/errors.js';
import { selfSignedCertificate } from '../helpers/certificate.js';
import { afterThisTest } from '../helpers/cleanup.js';
import { baseEnv, run } from '../helpers/cli.js';

const URL_ = new URL('https://api.example/v1/pets');
const failure = (code: string, message = `${code} raw text`) =>
  networkError(URL_, Object.assign(new Error(message), { code }), 1000, true);

describe('what a failed connection says', () => {
  const TRUST =
    "if it is your organisation's authority (or a proxy that inspects TLS), give its certificate in NODE_EXTRA_CA_CERTS=/path/to/ca.pem";
  it.each([
    [
      'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
      'its certificate is not signed by an authority this machine trusts',
      TRUST,
    ],
    [
      'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
      'its certificate is not signed by an authority this machine trusts',
      TRUST,
    ],
    [
      'DEPTH_ZERO_SELF_SIGNED_CERT',
      'its certificate is self-signed, and this machine does not trust it',
      'to trust it, give the certificate in NODE_EXTRA_CA_CERTS=/path/to/cert.pem',
    ],
    [
      'SELF_SIGNED_CERT_IN_CHAIN',
      'its certificate is self-signed, and this machine does not trust it',
      'to trust it, give the certificate in NODE_EXTRA_CA_CERTS=/path/to/cert.pem',
    ],
    ['CERT_HAS_EXPIRED', 'its certificate has expired', undefined],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'its certificate is for another host name', undefined],
    [
      'EPROTO',
      'the TLS handshake failed',
      'does it speak HTTPS on that port? an http:// URL is for a server that does not',
    ],
    ['UND_ERR_INFO', 'its answer is not valid HTTP', undefined],
  ])('%s: "%s", and its hint', (code, reason, hint) => {
    const error = failure(code);
    expect(error).toBeInstanceOf(NetworkError);
    expect(error.message).toBe(`cannot reach api.example: ${reason}`);
    expect(error.message).not.toContain(code);
    expect(error.hint).toBe(hint);
  });

  it.each([
    'HPE_INVALID_CONSTANT',
    'HPE_INVALID_CHUNK_SIZE',
    'UND_ERR_RES_CONTENT_LENGTH_MISMATCH',
  ])('%s: an answer that is not HTTP: exit 1, and it may have been acted on', (code) => {
    const error = failure(code);
    expect(error).toBeInstanceOf(ResponseError);
    expect(error.message).toBe('api.example sent an answer that is not valid HTTP');
    expect(error.exitCode).toBe(1);
    expect(mayHaveActed(error)).toBe(true);
  });

  it('a system error without words of store’s own: the system’s, not its errno name', () => {
    const error = networkError(
      URL_,
      Object.assign(new Error('read ECONNABORTED'), { code: 'ECONNABORTED', errno: -103 }),
      1000,
      true,
    );
    expect(error.message).toBe('cannot reach api.example: software caused connection abort');
  });
});

describe('a server whose certificate this machine does not trust (a real handshake)', () => {
  const certificate = selfSignedCertificate('/CN=127.0.0.1', 'IP:127.0.0.1');

  it('says it is self-signed, with NODE_EXTRA_CA_CERTS as the hint; exit 6, text and JSON', async () => {
    const server = createHttpsServer(
      { key: certificate.key, cert: certificate.cert },
      (_req, res) => res.end('[]'),
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    afterThisTest(() => new Promise<void>((resolve) => server.close(() => resolve())));
    const { port } = server.address() as AddressInfo;
    const env = baseEnv({
      STORE_API_KEY: 'k-12345678',
      STORE_BASE_URL: `https://127.0.0.1:${port}/v1`,
    });
    const hint = 'to trust it, give the certificate in NODE_EXTRA_CA_CERTS=/path/to/cert.pem';
    const message = `cannot reach 127.0.0.1:${port}: its certificate is self-signed, and this machine does not trust it`;
    expect(await run(['pets', 'list'], { env })).toEqual({
      code: 6,
      stdout: '',
      stderr: `error: ${message}\nhint: ${hint}\n`,
      prompts: [],
    });
    expect(await run(['pets', 'list', '--json'], { env })).toEqual({
      code: 6,
      stdout: '',
      stderr: `{"error":{"code":"network_error","message":"${message}","status":null,"hint":"${hint}"}}\n`,
      prompts: [],
    });
  });
});
