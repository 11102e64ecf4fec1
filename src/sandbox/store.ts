// The sandbox's data: pets, messages and orders, id assignment, and the optional JSON
// data file. Knows nothing about HTTP.
import { randomBytes } from 'node:crypto';
import { open, readFile, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { parseJson, stringifyJson } from '../json.js';
import { INT64_MAX, Message, type NewPet, PET_STATUSES, Pet, type PetStatus } from '../schemas.js';
import * as z from '../zod.js';

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

// The data file. Orders are not validated: the spec defines no shape for them.
const DataFile = z.object({
  pets: z._default(z.array(Pet), []),
  messages: z._default(z.array(Message), []),
  orders: z._default(z.array(z.unknown()), []),
});
type Data = z.infer<typeof DataFile>;

/** The fields PATCH may change; a null status removes it. */
export interface PetPatch {
  name?: string;
  categoryId?: NewPet['categoryId'];
  status?: PetStatus | null;
}

/** The data file exists but cannot be used; it is left untouched. */
export class DataFileError extends Error {
  readonly code = 'EDATA';
}

const SEED_NAMES = ['Rex', 'Bella', 'Milo', 'Luna', 'Max', 'Coco', 'Charlie', 'Daisy', 'Rocky'];
const SEED_CATEGORIES = 5;
const SEED_ORDERS = 3;

const byId = (a: Pet, b: Pet) => {
  const d = BigInt(a.id) - BigInt(b.id);
  return d < 0n ? -1 : d > 0n ? 1 : 0;
};

export class Store {
  // Ids are BigInt so that ids beyond 2^53 stay exact; stringifyJson writes them as integers.
  private nextId: bigint;
  // The newest write, started or waiting (never rejects); writes run one at a time.
  private lastWrite: Promise<void> = Promise.resolve();
  // A write that has not started yet. It snapshots the state when it starts, so every change
  // made while another write runs is saved by this single follow-up write.
  private queuedWrite: Promise<void> | undefined;

  private constructor(
    private readonly data: Data,
    private readonly file: string | undefined,
  ) {
    data.pets.sort(byId);
    const last = data.pets.at(-1);
    this.nextId = last === undefined ? 1n : BigInt(last.id) + 1n;
  }

  /** Loads (or creates) the data file if one is given, then seeds an empty store. */
  static async open(file?: string, seed = 0): Promise<Store> {
    if (!Number.isSafeInteger(seed) || seed < 0) {
      throw new RangeError(`seed must be a non-negative integer, got ${seed}`);
    }
    const loaded = file === undefined ? undefined : await load(file);
    const store = new Store(loaded ?? { pets: [], messages: [], orders: [] }, file);
    const seeded = store.data.pets.length === 0 && seed > 0;
    if (seeded) store.seed(seed);
    if (file !== undefined && (loaded === undefined || seeded)) await store.save();
    return store;
  }

  listPets(limit: number, status?: PetStatus): Pet[] {
    const pets = status ? this.data.pets.filter((pet) => pet.status === status) : this.data.pets;
    return pets.slice(0, limit);
  }

  getPet(id: bigint): Pet | undefined {
    return this.data.pets.find((pet) => BigInt(pet.id) === id);
  }

  /** Adds a pet with the next id; fields of `input` beyond NewPet's are dropped. */
  addPet(input: NewPet): Pet {
    if (this.nextId > INT64_MAX) throw new RangeError('pet ids are exhausted (int64 maximum)');
    const pet: Pet = { id: this.nextId, name: input.name, categoryId: input.categoryId };
    if (input.status !== undefined) pet.status = input.status;
    this.nextId += 1n;
    this.data.pets.push(pet);
    return pet;
  }

  /** Replaces a pet's fields with `input`'s; undefined when there is no such pet. */
  replacePet(id: bigint, input: NewPet): Pet | undefined {
    const pet = this.getPet(id);
    if (pet === undefined) return undefined;
    return this.patchPet(id, { status: null, ...input });
  }

  patchPet(id: bigint, patch: PetPatch): Pet | undefined {
    const pet = this.getPet(id);
    if (pet === undefined) return undefined;
    if (patch.name !== undefined) pet.name = patch.name;
    if (patch.categoryId !== undefined) pet.categoryId = patch.categoryId;
    if (patch.status === null) delete pet.status;
    else if (patch.status !== undefined) pet.status = patch.status;
    return pet;
  }

  /** False when there is no such pet. */
  deletePet(id: bigint): boolean {
    const index = this.data.pets.findIndex((pet) => BigInt(pet.id) === id);
    if (index >= 0) this.data.pets.splice(index, 1);
    return index >= 0;
  }

  addMessage(text: string): Message {
    const message = {
      id: `msg_${randomBytes(8).toString('hex')}`,
      message: text,
      status: 'queued',
      createdAt: new Date().toISOString(),
    };
    this.data.messages.push(message);
    return message;
  }

  listOrders(): unknown[] {
    return this.data.orders;
  }

  /** Saves the current state; resolves once a write that includes it is on disk. */
  save(): Promise<void> {
    const file = this.file;
    if (file === undefined) return Promise.resolve();
    if (this.queuedWrite === undefined) {
      const write = () => {
        this.queuedWrite = undefined;
        return writeAtomic(file, `${stringifyJson(this.data, 2)}\n`);
      };
      this.queuedWrite = this.lastWrite.then(write);
      this.lastWrite = this.queuedWrite.catch(() => {});
    }
    return this.queuedWrite;
  }

  /** Resolves when no write is running or waiting. */
  async flush(): Promise<void> {
    let last: Promise<void>;
    do {
      last = this.lastWrite;
      await last;
    } while (last !== this.lastWrite);
  }

  // Deterministic sample data, so that tests and demos see the same pets every time.
  private seed(count: number): void {
    for (let i = 0; i < count; i++) {
      const round = Math.floor(i / SEED_NAMES.length);
      const base = SEED_NAMES[i % SEED_NAMES.length] as string;
      this.addPet({
        name: round === 0 ? base : `${base} ${round + 1}`,
        categoryId: (i % SEED_CATEGORIES) + 1,
        status: PET_STATUSES[i % PET_STATUSES.length],
      });
    }
    this.data.pets.slice(0, SEED_ORDERS).forEach((pet, i) => {
      const status = ORDER_STATUSES[i % ORDER_STATUSES.length] as Order['status'];
      const order: Order = {
        id: this.data.orders.length + 1,
        petId: pet.id,
        quantity: i + 1,
        status,
        shipDate: new Date(Date.UTC(2026, 0, 5 + i)).toISOString(),
        complete: status === 'delivered',
      };
      this.data.orders.push(order);
    });
  }
}

/** Reads the data file; undefined when it does not exist yet. */
async function load(file: string): Promise<Data | undefined> {
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  let json: unknown;
  try {
    json = parseJson(text);
  } catch (err) {
    throw new DataFileError(`data file ${file} is not valid JSON: ${(err as Error).message}`);
  }
  const parsed = DataFile.safeParse(json);
  if (!parsed.success) {
    throw new DataFileError(
      `data file ${file} is not a sandbox data file:\n${z.prettifyError(parsed.error)}`,
    );
  }
  const ids = new Set(parsed.data.pets.map((pet) => BigInt(pet.id)));
  if (ids.size !== parsed.data.pets.length) {
    throw new DataFileError(`data file ${file} has two pets with the same id`);
  }
  return parsed.data;
}

// Write a temp file in the same folder (so rename stays on one file system), fsync it, then
// rename it over the target: a crash at any moment leaves the old or the new complete file.
async function writeAtomic(file: string, text: string): Promise<void> {
  const suffix = `${process.pid}.${randomBytes(6).toString('hex')}.tmp`;
  const temp = path.join(path.dirname(file), `.${path.basename(file)}.${suffix}`);
  try {
    const handle = await open(temp, 'wx');
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, file);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}
