import { type Int64, type NewPet, Pet, type PetStatus, Pets } from '../schemas.js';
import type { ApiClient } from './client.js';

export interface ListPetsQuery {
  limit?: number;
  status?: PetStatus;
}

export function listPets(api: ApiClient, query: ListPetsQuery): Promise<Pet[]> {
  return api.send({ method: 'GET', path: '/pets', query: { ...query }, schema: Pets });
}

export function createPet(api: ApiClient, pet: NewPet): Promise<Pet> {
  return api.send({ method: 'POST', path: '/pets', body: pet, schema: Pet });
}

export function getPet(api: ApiClient, petId: Int64): Promise<Pet> {
  return api.send({ method: 'GET', path: `/pets/${petId}`, schema: Pet });
}
