import { Orders } from '../schemas.js';
import type { ApiClient } from './client.js';

/** The orders' shape is not specified: whatever JSON comes back is returned as is. */
export function listOrders(api: ApiClient): Promise<unknown> {
  return api.send({ method: 'GET', path: '/store/orders', schema: Orders });
}
