// Many `store` processes writing config.json at once, as scripts and parallel shells do: each
// read–modify–write happens under the lock, so none of them loses another's change.
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, expect, it } from 'vitest';
import { configSetup } from '../helpers/cli.js';
import { BIN, collect, store } from '../helpers/process.js';

const WRITERS = 50;

describe('config.json written by 50 processes at once', () => {
  it('keeps every profile set and every key stored', { timeout: 120_000 }, async () => {
    const { dir, env, file } = configSetup();
    // A lock left by a process that died: all 50 find it stale at once, one of them removes
    // it, and none of them may remove the lock another has taken since.
    const dead = spawnSync(process.execPath, ['-e', '']).pid;
    writeFileSync(
      `${file}.lock`,
      JSON.stringify({ pid: dead, host: hostname(), time: Date.now(), token: '0123456789abcdef' }),
    );
    const half = WRITERS / 2;
    // Profiles for the logins exist beforehand: `auth login -p qN` needs its profile.
    const profiles: Record<string, { baseUrl: string }> = {};
    for (let i = 0; i < half; i++) profiles[`q${i}`] = { baseUrl: `https://q${i}.example/v1` };
    writeFileSync(file, JSON.stringify({ profiles }), { mode: 0o600 });

    const processEnv = env as NodeJS.ProcessEnv;
    const runs = Array.from({ length: half }, (_, i) => [
      store(['profile', 'set', `p${i}`, '--base-url', `https://p${i}.example/v1`], {
        env: processEnv,
      }),
      store(['-p', `q${i}`, 'auth', 'login', '--with-key', '--no-verify'], {
        env: processEnv,
        stdin: `key-q${i}-0123456789\n`,
      }),
    ]).flat();
    const results = await Promise.all(runs);

    expect(results.map((r) => [r.code, r.stdout])).toEqual(Array(WRITERS).fill([0, '']));
    const expected: Record<string, unknown> = {};
    for (let i = 0; i < half; i++) {
      expected[`q${i}`] = { baseUrl: `https://q${i}.example/v1`, apiKey: `key-q${i}-0123456789` };
      expected[`p${i}`] = { baseUrl: `https://p${i}.example/v1` };
    }
    const saved = JSON.parse(readFileSync(file, 'utf8'));
    expect(saved.profiles).toEqual(expected);
    // No lock, draft or claim left behind.
    expect(readdirSync(dir)).toEqual(['config.json']);
  });
});

describe('a config.json locked by a live process', () => {
  it('is waited for; Ctrl-C stops the wait (by SIGINT: exit status 130) and nothing written', async () => {
    const { dir, env, file } = configSetup();
    writeFileSync(file, '{"profiles":{}}', { mode: 0o600 });
    // This test's own process stands for the holder: it runs, and the lock is fresh.
    const live = JSON.stringify({
      pid: process.pid,
      host: hostname(),
      time: Date.now(),
      token: '0123456789abcdef',
    });
    writeFileSync(`${file}.lock`, live);
    const child = spawn(
      process.execPath,
      [BIN, 'profile', 'set', 'eu', '--base-url', 'https://eu.example/v1'],
      { env: env as NodeJS.ProcessEnv },
    );
    const result = collect(child);
    // Its draft beside the lock shows it is waiting.
    while (!readdirSync(dir).some((name) => name.startsWith('config.json.lock.new-'))) {
      await sleep(20);
    }
    child.kill('SIGINT');
    expect(await result).toEqual({ code: null, signal: 'SIGINT', stdout: '', stderr: '' });
    expect(readFileSync(file, 'utf8')).toBe('{"profiles":{}}');
    expect(readFileSync(`${file}.lock`, 'utf8')).toBe(live);
    expect(readdirSync(dir).sort()).toEqual(['config.json', 'config.json.lock']);
  });
});
