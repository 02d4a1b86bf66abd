// dynalite ships no types; this is the part the tests use.
declare module 'dynalite' {
  import type { Server } from 'node:net';
  interface DynaliteOptions {
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
    path?: string;
  }
  export default function dynalite(options?: DynaliteOptions): Server;
}
