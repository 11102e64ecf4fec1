// `store sandbox --data` as a process: killed with SIGKILL in the middle of a bulk add by
// bin/store.js (another process), then restarted on the same file.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { parseJson } from '../../src/json.js';
import { tempDir } from '../helpers/cli.js';
import {
  BIN,
  collect,
  killAll,
  type SandboxProcess,
  startSandbox,
  store,
} from '../helpers/process.js';

afterEach(killAll);

describe('store sandbox --data', () => {
  let sandbox: SandboxProcess;

  it('loses no acknowledged animal when killed with SIGKILL during a bulk add', async () => {
    const data = join(tempDir(), 'store.db');
    sandbox = await startSandbox(['--data', data]);
    const total = 20_000;
    const input = Array.from({ length: total }, (_, i) => `{"name":"P${i}","categoryId":${i}}`);
    const adding = spawn(process.execPath, [BIN, 'pets', 'add', '--file', '-', '--json'], {
      env: sandbox.env(),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    adding.stdin.end(`${input.join('\n')}\n`);
    const result = collect(adding);
    // Killed as soon as the client has reported some animals created, with more in flight.
    await once(adding.stdout, 'data');
    await sandbox.stop('SIGKILL');
    const added = await result;
    expect(added.code).toBe(6); // the server went away under it

    // What the client printed as created is what was acknowledged with a 201.
    const created = added.stdout
      .split('\n')
      .filter((line) => line.startsWith('{"id"'))
      .map((line) => parseJson(line) as { id: number; name: string; categoryId: number });
    expect(created.length).toBeGreaterThan(0);
    expect(created.length).toBeLessThan(total);

    sandbox = await startSandbox(['--data', data]);
    const auth = { authorization: 'Bearer sandbox' };
    for (let i = 0; i < created.length; i += 50) {
      await Promise.all(
        created.slice(i, i + 50).map(async (pet) => {
          const res = await request(`${sandbox.url}/pets/${pet.id}`, { headers: auth });
          expect(res.statusCode, `pet ${pet.id}`).toBe(200);
          expect(parseJson(await res.body.text())).toEqual(pet);
        }),
      );
    }
    // The restarted sandbox goes on after the highest id it stored.
    const next = await store(['pets', 'add', '--name', 'After', '--category-id', '1', '--json'], {
      env: sandbox.env(),
    });
    const nextId = (parseJson(next.stdout) as { id: number }).id;
    expect(nextId).toBeGreaterThan(Math.max(...created.map((pet) => pet.id)));
  });
});
