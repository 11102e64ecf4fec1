import { afterEach, describe, expect, it, vi } from 'vitest';
import { isSqliteWarning, loadSqlite, withoutSqliteWarning } from '../../src/sandbox/sqlite.js';

afterEach(() => {
  vi.restoreAllMocks();
});

// Node 22's warning, as lib/sqlite.js emits it (Node 24 emits none).
const SQLITE_WARNING = 'SQLite is an experimental feature and might change at any time';

describe('loading node:sqlite', () => {
  it('drops only the SQLite ExperimentalWarning, and only while loading', async () => {
    const emitted = vi.spyOn(process, 'emitWarning').mockImplementation(() => {});
    const original = process.emitWarning;
    await withoutSqliteWarning(async () => {
      process.emitWarning(SQLITE_WARNING, 'ExperimentalWarning');
      process.emitWarning(SQLITE_WARNING, { type: 'ExperimentalWarning' });
      process.emitWarning('VM modules are an experimental feature', 'ExperimentalWarning');
      process.emitWarning(SQLITE_WARNING, 'DeprecationWarning');
    });
    expect(process.emitWarning).toBe(original);
    process.emitWarning(SQLITE_WARNING, 'ExperimentalWarning');
    expect(emitted.mock.calls).toEqual([
      ['VM modules are an experimental feature', 'ExperimentalWarning'],
      [SQLITE_WARNING, 'DeprecationWarning'],
      [SQLITE_WARNING, 'ExperimentalWarning'],
    ]);
  });

  it('restores process.emitWarning when loading fails', async () => {
    const original = process.emitWarning;
    await expect(withoutSqliteWarning(() => Promise.reject(new Error('no')))).rejects.toThrow('no');
    expect(process.emitWarning).toBe(original);
  });

  it('recognises the warning as an Error object too', () => {
    const warning = Object.assign(new Error(SQLITE_WARNING), { name: 'ExperimentalWarning' });
    expect(isSqliteWarning(warning)).toBe(true);
    expect(isSqliteWarning(new Error(SQLITE_WARNING))).toBe(false);
  });

  it('gives the module', async () => {
    const { DatabaseSync } = await loadSqlite();
    expect(new DatabaseSync(':memory:').prepare('SELECT 1 AS one').get()).toEqual({ one: 1 });
  });
});
