import { Message } from '../schemas.js';
import type { ApiClient } from './client.js';

export function sendMessage(api: ApiClient, text: string): Promise<Message> {
  return api.send({
    method: 'POST',
    base: 'messages',
    path: '/messages',
    json: { message: text },
    schema: Message,
  });
}
