import { type Int64, type NewPet, PET_GET_SUNSET, Pet, type PetStatus, Pets } from '../schemas.js';
import type { ApiClient, RequestOptions } from './client.js';

export interface ListPetsQuery {
  limit?: number;
  status?: PetStatus;
}

export function listPets(api: ApiClient, query: ListPetsQuery): Promise<Pet[]> {
  return api.send({ method: 'GET', path: '/pets', query: { ...query }, schema: Pets });
}

export function createPet(
  api: ApiClient,
  pet: NewPet,
  how: Pick<RequestOptions, 'throttle'> = {},
): Promise<Pet> {
  return api.send({ method: 'POST', path: '/pets', json: pet, schema: Pet, ...how });
}

export function getPet(api: ApiClient, petId: Int64): Promise<Pet> {
  // `store pets get` announces the deprecation itself: the API's headers add no second line.
  return api.send({
    method: 'GET',
    path: `/pets/${petId}`,
    schema: Pet,
    announcedSunset: PET_GET_SUNSET,
  });
}
