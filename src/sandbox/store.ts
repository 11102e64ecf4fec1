// The sandbox's data: pets, messages and orders, and id assignment, in an SQLite database
// (node:sqlite): in memory, or in the --data file. Knows nothing about HTTP.
//
// Durability. A change is answered only once the transaction holding it is committed. The
// database is in WAL mode with synchronous=NORMAL: COMMIT returns once the transaction's WAL
// frames are written to the file (write(2) has returned, the kernel holds them), so killing
// the sandbox at any moment, kill -9 included, loses nothing acknowledged; the WAL is fsynced
// at checkpoints. What NORMAL does not cover is the machine itself failing (power cut, kernel
// crash): the last commits may then be lost, never the database's consistency.
// synchronous=FULL (an fsync per COMMIT) would cover that too, but its fsync latency, times the
// client's 8 requests in flight, held bulk add below half the in-memory rate, the target
// (docs/performance.md, "Figures behind the code's choices"). Changes that arrive together are committed together (group commit): each change
// runs at once inside the open transaction, and one COMMIT per turn of the event loop
// settles them all. A COMMIT
// that fails is rolled back and every change of its group is refused: nothing is
// acknowledged that was not stored. Reads commit what is pending first, so they never see a
// change that could still be refused.
import { randomBytes } from 'node:crypto';
import { statSync } from 'node:fs';
import type { DatabaseSync, StatementSync } from 'node:sqlite';
import { messageOf } from '../errors.js';
import { parseJson, stringifyJson } from '../json.js';
import {
  INT64_MAX,
  type Int64,
  type Message,
  type NewPet,
  PET_STATUSES,
  type Pet,
  type PetStatus,
} from '../schemas.js';
import { DataFileError, inspectDataFile } from './data-file.js';
import { loadSqlite, type Sqlite } from './sqlite.js';

export { DataFileError } from './data-file.js';

const ORDER_STATUSES = ['placed', 'approved', 'delivered'] as const;

/** A store order. The spec does not describe orders, so this shape is the sandbox's own. */
export interface Order {
  id: number;
  petId: Pet['id'];
  quantity: number;
  status: (typeof ORDER_STATUSES)[number];
  shipDate: string;
  complete: boolean;
}

/** The fields PATCH may change; a null status removes it. */
export interface PetPatch {
  name?: string;
  categoryId?: NewPet['categoryId'];
  status?: PetStatus | null;
}

/** Every pet id up to the int64 maximum has been given: no pet can be added. */
export class IdsExhaustedError extends Error {
  readonly code = 'EIDS';
}

/** A change could not be stored (and was not): the data file or its folder failed. */
export class StorageError extends Error {
  readonly code = 'ESTORAGE';
}

const SEED_NAMES = ['Rex', 'Bella', 'Milo', 'Luna', 'Max', 'Coco', 'Charlie', 'Daisy', 'Rocky'];
const SEED_CATEGORIES = 5;
const SEED_ORDERS = 3;

// Marks the file as the sandbox's ('Stor'), so that another SQLite database is not mistaken
// for one; user_version is the layout's version.
const APPLICATION_ID = 0x53746f72;
const SCHEMA_VERSION = 1;

// STRICT tables refuse a value of the wrong type instead of converting it. AUTOINCREMENT:
// an id is never given twice, not even after its pet is deleted; at the int64 maximum it
// stops (IdsExhaustedError) rather than picking a random free id.
const SCHEMA = `
  CREATE TABLE pets (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    name TEXT NOT NULL,
    category_id INTEGER NOT NULL,
    status TEXT
  ) STRICT;
  CREATE INDEX pets_by_status ON pets (status, id);
  CREATE TABLE messages (
    seq INTEGER PRIMARY KEY,
    id TEXT NOT NULL UNIQUE,
    message TEXT NOT NULL,
    status TEXT NOT NULL,
    created_at TEXT NOT NULL
  ) STRICT;
  CREATE TABLE orders (
    id INTEGER PRIMARY KEY,
    body TEXT NOT NULL
  ) STRICT;
  PRAGMA application_id = ${APPLICATION_ID};
  PRAGMA user_version = ${SCHEMA_VERSION};
`;

// The name read as bytes: node:sqlite on Node 22 cuts a text value at its first NUL on reading
// (the stored value is whole), so a name such as "a\u0000b" would come back as "a".
const PET_COLUMNS = 'id, CAST(name AS BLOB) AS name, category_id, status';
const SQL = {
  listPets: `SELECT ${PET_COLUMNS} FROM pets ORDER BY id LIMIT ?`,
  listPetsWithStatus: `SELECT ${PET_COLUMNS} FROM pets WHERE status = ? ORDER BY id LIMIT ?`,
  getPet: `SELECT ${PET_COLUMNS} FROM pets WHERE id = ?`,
  lastPetId: `SELECT seq FROM sqlite_sequence WHERE name = 'pets'`,
  addPet: `INSERT INTO pets (name, category_id, status) VALUES (?, ?, ?) RETURNING ${PET_COLUMNS}`,
  replacePet: `UPDATE pets SET name = ?, category_id = ?, status = ? WHERE id = ? RETURNING ${PET_COLUMNS}`,
  // A status parameter of NULL with the keep flag set leaves it unchanged.
  patchPet: `UPDATE pets SET name = coalesce(?, name), category_id = coalesce(?, category_id),
    status = CASE WHEN ? THEN status ELSE ? END WHERE id = ? RETURNING ${PET_COLUMNS}`,
  deletePet: 'DELETE FROM pets WHERE id = ?',
  addMessage: 'INSERT INTO messages (id, message, status, created_at) VALUES (?, ?, ?, ?)',
  addOrder: 'INSERT INTO orders (id, body) VALUES (?, ?)',
  listOrders: 'SELECT body FROM orders ORDER BY id',
} as const;

type Statements = Record<keyof typeof SQL, StatementSync>;

interface PetRow {
  id: bigint;
  name: Uint8Array;
  category_id: bigint;
  status: string | null;
}

/** A safe integer as a number, anything larger as a BigInt: the form the JSON layer keeps exact. */
function int64(value: bigint): Int64 {
  return value >= BigInt(Number.MIN_SAFE_INTEGER) && value <= BigInt(Number.MAX_SAFE_INTEGER)
    ? Number(value)
    : value;
}

function toPet(row: PetRow): Pet {
  const name = Buffer.from(row.name).toString('utf8');
  const pet: Pet = { id: int64(row.id), name, categoryId: int64(row.category_id) };
  if (row.status !== null) pet.status = row.status;
  return pet;
}

interface Waiter {
  resolve(): void;
  reject(error: Error): void;
}

export class Store {
  // Changes made in the open transaction, answered once it commits.
  private pending: Waiter[] = [];
  private commitScheduled = false;
  /** Closed on stop: a commit scheduled before it, or a change arriving after it, must not
   * touch the database (node:sqlite throws "database is not open"). */
  private closed = false;

  private constructor(
    private readonly db: DatabaseSync,
    private readonly sql: Statements,
    /** The data file's identity when opened: a commit is refused once it is gone. */
    private readonly file?: { path: string; dev: number; ino: number },
  ) {}

  /** Opens (or creates) the data file if one is given, else an in-memory database; seeds
   * `seed` sample animals when there are none. */
  static async open(file?: string, seed = 0): Promise<Store> {
    if (!Number.isSafeInteger(seed) || seed < 0) {
      throw new RangeError(`seed must be a non-negative integer, got ${seed}`);
    }
    const sqlite = await loadSqlite();
    let db: DatabaseSync;
    let identity: Store['file'];
    if (file === undefined) {
      db = new sqlite.DatabaseSync(':memory:');
      db.exec(SCHEMA);
    } else {
      const found = await inspectDataFile(file);
      db = openFile(sqlite, file, found.path, found.kind === 'new');
      const { dev, ino } = statSync(found.path);
      identity = { path: found.path, dev, ino };
    }
    const sql = Object.fromEntries(
      Object.entries(SQL).map(([name, text]) => {
        const statement = db.prepare(text);
        statement.setReadBigInts(true); // int64 ids beyond 2^53 stay exact
        return [name, statement];
      }),
    ) as Statements;
    const store = new Store(db, sql, identity);
    if (seed > 0 && sql.listPets.get(1) === undefined) store.seed(seed);
    return store;
  }

  listPets(limit: number, status?: PetStatus): Pet[] {
    this.settle();
    const rows =
      status === undefined
        ? this.sql.listPets.all(limit)
        : this.sql.listPetsWithStatus.all(status, limit);
    return (rows as unknown as PetRow[]).map(toPet);
  }

  getPet(id: bigint): Pet | undefined {
    this.settle();
    const row = this.sql.getPet.get(id) as PetRow | undefined;
    return row && toPet(row);
  }

  /** Adds a pet with the next id; fields of `input` beyond NewPet's are dropped. */
  addPet(input: NewPet): Promise<Pet> {
    return this.write(() => {
      const last = (this.sql.lastPetId.get() as { seq: bigint } | undefined)?.seq;
      if (last === INT64_MAX) throw new IdsExhaustedError('pet ids are exhausted (int64 maximum)');
      const row = this.sql.addPet.get(input.name, BigInt(input.categoryId), input.status ?? null);
      return toPet(row as unknown as PetRow);
    });
  }

  /** Replaces a pet's fields with `input`'s (a status left out is removed); undefined when
   * there is no such pet. */
  replacePet(id: bigint, input: NewPet): Promise<Pet | undefined> {
    return this.write(() => {
      const row = this.sql.replacePet.get(
        input.name,
        BigInt(input.categoryId),
        input.status ?? null,
        id,
      );
      return row && toPet(row as unknown as PetRow);
    });
  }

  patchPet(id: bigint, patch: PetPatch): Promise<Pet | undefined> {
    return this.write(() => {
      const row = this.sql.patchPet.get(
        patch.name ?? null,
        patch.categoryId === undefined ? null : BigInt(patch.categoryId),
        patch.status === undefined ? 1 : 0,
        patch.status ?? null,
        id,
      );
      return row && toPet(row as unknown as PetRow);
    });
  }

  /** False when there is no such pet. */
  deletePet(id: bigint): Promise<boolean> {
    return this.write(() => Number(this.sql.deletePet.run(id).changes) > 0);
  }

  addMessage(text: string): Promise<Message> {
    return this.write(() => {
      const message = {
        id: `msg_${randomBytes(8).toString('hex')}`,
        message: text,
        status: 'queued',
        createdAt: new Date().toISOString(),
      };
      this.sql.addMessage.run(message.id, message.message, message.status, message.createdAt);
      return message;
    });
  }

  listOrders(): unknown[] {
    this.settle();
    return (this.sql.listOrders.all() as { body: string }[]).map((row) => parseJson(row.body));
  }

  /** Commits what is pending and closes the database. */
  close(): void {
    if (this.closed) return;
    this.settle();
    this.closed = true;
    this.db.close();
  }

  /** Runs a change in the open transaction (starting one if needed); resolves with its result
   * once that transaction is committed. */
  private write<T>(change: () => T): Promise<T> {
    if (this.closed) return Promise.reject(new StorageError('the sandbox is stopping'));
    let value: T;
    try {
      if (!this.db.isTransaction) this.db.exec('BEGIN IMMEDIATE');
      value = change();
    } catch (error) {
      if (error instanceof IdsExhaustedError) return Promise.reject(error);
      const failure = new StorageError(`could not store the change: ${messageOf(error)}`, {
        cause: error,
      });
      // A failed statement undoes itself; one that ended the whole transaction took the
      // group's earlier changes with it: those are refused too, never acknowledged.
      if (!this.db.isTransaction) this.refusePending(failure);
      return Promise.reject(failure);
    }
    return new Promise<T>((resolve, reject) => {
      this.pending.push({ resolve: () => resolve(value), reject });
      if (!this.commitScheduled) {
        this.commitScheduled = true;
        setImmediate(() => {
          this.commitScheduled = false;
          this.settle();
        });
      }
    });
  }

  /** Commits the open transaction, if any, and answers the changes waiting for it. */
  private settle(): void {
    if (this.closed || !this.db.isTransaction) return;
    const group = this.pending.splice(0);
    try {
      this.checkFile();
      this.db.exec('COMMIT');
    } catch (error) {
      try {
        if (this.db.isTransaction) this.db.exec('ROLLBACK');
      } catch {
        // Nothing more to undo: a failed ROLLBACK leaves the transaction ended.
      }
      const failure = new StorageError(`could not store the change: ${messageOf(error)}`, {
        cause: error,
      });
      for (const waiter of group) waiter.reject(failure);
      return;
    }
    for (const waiter of group) waiter.resolve();
  }

  private refusePending(failure: Error): void {
    for (const waiter of this.pending.splice(0)) waiter.reject(failure);
  }

  /** A data file deleted or replaced while open would take commits that no restart sees. */
  private checkFile(): void {
    if (this.file === undefined) return;
    const now = statSync(this.file.path, { throwIfNoEntry: false });
    if (now?.dev !== this.file.dev || now.ino !== this.file.ino) {
      throw new Error(`the data file ${this.file.path} was removed or replaced`);
    }
  }

  // Deterministic sample data, so that tests and demos see the same pets every time.
  private seed(count: number): void {
    this.db.exec('BEGIN IMMEDIATE');
    try {
      const pets: Pet[] = [];
      for (let i = 0; i < count; i++) {
        const round = Math.floor(i / SEED_NAMES.length);
        const base = SEED_NAMES[i % SEED_NAMES.length] as string;
        const row = this.sql.addPet.get(
          round === 0 ? base : `${base} ${round + 1}`,
          BigInt((i % SEED_CATEGORIES) + 1),
          PET_STATUSES[i % PET_STATUSES.length] as string,
        );
        pets.push(toPet(row as unknown as PetRow));
      }
      // Orders kept from an earlier run (its pets all deleted) have the ids 1…3 already.
      const ordersKept = this.sql.listOrders.get() !== undefined;
      pets.slice(0, ordersKept ? 0 : SEED_ORDERS).forEach((pet, i) => {
        const status = ORDER_STATUSES[i % ORDER_STATUSES.length] as Order['status'];
        const order: Order = {
          id: i + 1,
          petId: pet.id,
          quantity: i + 1,
          status,
          shipDate: new Date(Date.UTC(2026, 0, 5 + i)).toISOString(),
          complete: status === 'delivered',
        };
        this.sql.addOrder.run(order.id, stringifyJson(order));
      });
      this.db.exec('COMMIT');
    } catch (error) {
      this.db.exec('ROLLBACK');
      throw error;
    }
  }
}

/** Opens the sandbox's database file (creating its tables when new). */
function openFile(sqlite: Sqlite, file: string, real: string, fresh: boolean): DatabaseSync {
  let db: DatabaseSync | undefined;
  try {
    db = new sqlite.DatabaseSync(real);
    // Waits up to 2 s for another process (say, the sqlite3 shell) to release its lock.
    db.exec('PRAGMA busy_timeout = 2000');
    if (fresh) db.exec(`PRAGMA journal_mode = WAL; ${SCHEMA}`);
    // Checked before anything is written: another program's database is left as it was.
    const read = (pragma: string) => Object.values(db?.prepare(`PRAGMA ${pragma}`).get() ?? {})[0];
    if (read('application_id') !== APPLICATION_ID) {
      throw new DataFileError(
        `data file ${file} is an SQLite database but not the sandbox's; it was left untouched`,
      );
    }
    const version = read('user_version');
    if (version !== SCHEMA_VERSION) {
      throw new DataFileError(
        `data file ${file} has layout version ${version}, which this version of store does not know; it was left untouched`,
      );
    }
    db.exec('PRAGMA journal_mode = WAL; PRAGMA synchronous = NORMAL');
    return db;
  } catch (error) {
    db?.close();
    if (error instanceof DataFileError) throw error;
    throw new DataFileError(`data file ${file} cannot be opened: ${messageOf(error)}`, {
      cause: error,
    });
  }
}
