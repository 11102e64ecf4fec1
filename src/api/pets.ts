import { type Int64, type NewPet, Pet, type PetStatus, Pets } from '../schemas.js';
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

/** The removal date of GET /pets/{petId} (spec 4.3). */
export const PET_GET_SUNSET = '2030-12-05';

export function getPet(api: ApiClient, petId: Int64): Promise<Pet> {
  // `store pets get` announces the deprecation itself: the API's headers add no second line.
  return api.send({
    method: 'GET',
    path: `/pets/${petId}`,
    schema: Pet,
    announcedSunset: PET_GET_SUNSET,
  });
}
