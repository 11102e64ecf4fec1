// Ctrl-C ends a real process, whatever it is waiting for.
import { execFileSync, spawn } from 'node:child_process';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { afterThisTest } from '../helpers/cleanup.js';
import { tempDir } from '../helpers/cli.js';
import { faultServer, reply } from '../helpers/fault-server.js';
import { BIN, collect, processEnv } from '../helpers/process.js';

describe('Ctrl-C', () => {
  it('ends bulk add waiting to open a FIFO no one writes to at the first Ctrl-C: exit 130', async () => {
    const fifo = join(tempDir(), 'animals.fifo');
    execFileSync('mkfifo', [fifo]);
    const child = spawn(process.execPath, [BIN, 'pets', 'add', '--file', fifo, '--json'], {
      env: processEnv({ STORE_API_KEY: 'k', STORE_BASE_URL: 'http://127.0.0.1:9/v1' }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    // Should it fail, no process is left blocked on the FIFO.
    afterThisTest(() => child.kill('SIGKILL'));
    const ended = collect(child);
    // The open waits in libuv's thread pool from the start; give the process time to get there.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    child.kill('SIGINT');
    expect(await ended).toEqual({ code: 130, signal: null, stdout: '', stderr: '' });
  });

  it('ends store api waiting to open its --input FIFO: exit 130, nothing sent', async () => {
    const server = await faultServer((_req, res) => reply(res, 201, '{}'));
    const fifo = join(tempDir(), 'body.fifo');
    execFileSync('mkfifo', [fifo]);
    const child = spawn(process.execPath, [BIN, 'api', '/pets', '--input', fifo], {
      env: processEnv({ STORE_API_KEY: 'k', STORE_BASE_URL: server.url }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    afterThisTest(() => child.kill('SIGKILL'));
    const ended = collect(child);
    await new Promise((resolve) => setTimeout(resolve, 1000));
    child.kill('SIGINT');
    expect(await ended).toEqual({ code: 130, signal: null, stdout: '', stderr: '' });
    expect(server.seen).toEqual([]);
  });

  it('ends bulk add reading a FIFO whose writer stays and says nothing', async () => {
    const server = await faultServer((_req, res) =>
      reply(res, 201, '{"id":1,"name":"a","categoryId":1}'),
    );
    const fifo = join(tempDir(), 'animals.fifo');
    execFileSync('mkfifo', [fifo]);
    const child = spawn(process.execPath, [BIN, 'pets', 'add', '--file', fifo, '--json'], {
      env: processEnv({ STORE_API_KEY: 'k', STORE_BASE_URL: server.url }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    afterThisTest(() => child.kill('SIGKILL'));
    const ended = collect(child);
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    // The writer: one animal, then it stays and says nothing (a read of the FIFO waits).
    const writer = await open(fifo, 'w');
    afterThisTest(() => writer.close());
    await writer.write('{"name":"a","categoryId":1}\n');
    while (!stdout.includes('\n')) await new Promise((resolve) => setTimeout(resolve, 20));
    child.kill('SIGINT');
    // The read cannot be cancelled and holds the process: once its report is written, it ends
    // by the signal (a shell's $? is 130).
    expect(await ended).toEqual({
      code: null,
      signal: 'SIGINT',
      stdout: '{"id":1,"name":"a","categoryId":1}\n',
      stderr: 'interrupted: inputs after 1 were not sent; resume with --skip 1\n',
    });
  });

  it('a second Ctrl-C ends bulk add at once while it waits for requests in flight', async () => {
    const server = await faultServer(() => {}); // never answers
    const child = spawn(process.execPath, [BIN, 'pets', 'add', '--file', '-', '--json'], {
      env: processEnv({ STORE_API_KEY: 'k', STORE_BASE_URL: server.url }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const ended = collect(child);
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    child.stdin.end('{"name":"a","categoryId":1}\n');
    while (server.seen.length === 0) await new Promise((resolve) => setTimeout(resolve, 20));
    child.kill('SIGINT');
    // The first lets the request in flight finish, and says how to quit at once.
    while (!stderr.includes('Ctrl-C again')) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    child.kill('SIGINT');
    expect(await ended).toEqual({
      code: null,
      signal: 'SIGINT',
      stdout: '',
      stderr: 'waiting for 1 requests in flight (Ctrl-C again to quit at once)\n',
    });
  });

  it('ends bulk add waiting on a silent stdin: exit 130, the resume point said, nothing left running', async () => {
    const server = await faultServer((_req, res) =>
      reply(res, 201, '{"id":1,"name":"a","categoryId":1}'),
    );
    const child = spawn(process.execPath, [BIN, 'pets', 'add', '--file', '-', '--json'], {
      env: processEnv({ STORE_API_KEY: 'k', STORE_BASE_URL: server.url }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const ended = collect(child);
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    // One animal, then stdin stays open and silent: the process is waiting for more.
    child.stdin.write('{"name":"a","categoryId":1}\n');
    while (!stdout.includes('\n')) await new Promise((resolve) => setTimeout(resolve, 20));
    child.kill('SIGINT');
    expect(await ended).toEqual({
      code: 130,
      signal: null,
      stdout: '{"id":1,"name":"a","categoryId":1}\n',
      stderr: 'interrupted: inputs after 1 were not sent; resume with --skip 1\n',
    });
  });
});
