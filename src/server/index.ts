/**
 * The relay entry with its Node pieces: web.ts (the web runtimes' entry)
 * plus `listen` on `node:http` and `openJournal` with its SQLite and
 * PostgreSQL stores. node.ts, the package's `node` condition, builds on this
 * module (adding undici), and the repository's own code imports it. Its
 * declarations are the package's one set of types for `pay-checkout/server`.
 */

export { listen, type RunningServer } from '../http/node/listen.js';
export { openJournal } from './journal/open-journal.js';
export * from './web.js';
