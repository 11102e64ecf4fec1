// Types for undici's Agent imported by its path (undici-sender.ts): a bulk add loads it
// alone, not undici's index.
declare module 'undici/lib/dispatcher/agent.js' {
  import { Agent } from 'undici';
  export default Agent;
}
