// Types for the few undici modules imported by path (transport.ts): loading only these, not
// undici's index (fetch, WebSocket, caches…), is most of the time a request takes to start.
declare module 'undici/lib/dispatcher/agent.js' {
  import { Agent } from 'undici';
  export default Agent;
}
