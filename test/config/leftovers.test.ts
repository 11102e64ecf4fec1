// Files a `store` killed with SIGKILL leaves in the config folder (conf's temporary file, a
// lock draft or claim) are removed by the next write; those of live processes are kept.
import { spawnSync } from 'node:child_process';
import { readdirSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { configSetup, readConfig, run } from '../helpers/cli.js';

const stamp = (pid: number, token: string, ageMs = 0) =>
  JSON.stringify({ pid, host: hostname(), time: Date.now() - ageMs, token });

describe('files left in the config folder by a killed store', () => {
  it('are removed by the next write, and those of live processes kept', async () => {
    const { dir, env, file } = configSetup();
    const dead = spawnSync(process.execPath, ['-e', '']).pid as number;
    const old = new Date(Date.now() - 60_000);
    const left = {
      temp: 'config.json.tmp-1795456342abc123',
      freshTemp: 'config.json.tmp-1795456399def456',
      draft: 'config.json.lock.new-00000000000000aa',
      claim: 'config.json.lock.end-00000000000000bb',
      liveDraft: 'config.json.lock.new-00000000000000cc',
      other: 'notes.txt',
      // A user's own file, named like conf's but for its end: not ours to remove.
      usersBackup: 'config.json.tmp-1795456342abc123.bak',
    };
    writeFileSync(join(dir, left.temp), '{"profiles":{}}');
    utimesSync(join(dir, left.temp), old, old);
    writeFileSync(join(dir, left.freshTemp), '{}');
    writeFileSync(join(dir, left.draft), stamp(dead, '00000000000000aa'));
    writeFileSync(join(dir, left.claim), stamp(process.pid, '00000000000000bb', 60_000));
    writeFileSync(join(dir, left.liveDraft), stamp(process.pid, '00000000000000cc'));
    writeFileSync(join(dir, left.other), 'mine');
    writeFileSync(join(dir, left.usersBackup), 'mine too');
    utimesSync(join(dir, left.usersBackup), old, old);

    const result = await run(['profile', 'set', 'eu', '--base-url', 'https://eu.example/v1'], {
      env,
    });
    expect(result).toEqual({ code: 0, stdout: '', stderr: 'Created profile eu\n', prompts: [] });
    expect(readConfig(file)).toEqual({ profiles: { eu: { baseUrl: 'https://eu.example/v1' } } });
    expect(readdirSync(dir).sort()).toEqual(
      ['config.json', left.freshTemp, left.liveDraft, left.other, left.usersBackup].sort(),
    );
  });
});
