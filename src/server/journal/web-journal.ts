/**
 * `openJournal` as the web entry exports it: on a web runtime only `memory:`
 * opens. The SQLite store writes a file through `node:fs`, and both drivers
 * (libsql, pg) are Node modules that a bundle for a web runtime cannot hold,
 * so those URLs reject with what to use instead (open-journal.ts opens them
 * on Node). Same type as the Node one.
 */
import { needsNode } from '../../http/needs-node.js';
import type { Journal } from './journal.js';
import { type JournalLocation, locateJournal, type OpenJournalOptions } from './journal-url.js';
import { MemoryJournal } from './memory-journal.js';

const SCHEMES: Record<Exclude<JournalLocation['store'], 'memory'>, string> = {
  sqlite: 'sqlite:',
  postgres: 'postgres://',
};

/** Opens a `memory:` journal; rejects for the stores that need Node. */
export async function openJournal(url: string, options: OpenJournalOptions = {}): Promise<Journal> {
  const location = locateJournal(url);
  if (location.store === 'memory') return new MemoryJournal(options.clock);
  // The scheme only: the URL may carry a password.
  throw needsNode(
    `openJournal('${SCHEMES[location.store]}…')`,
    'pay-checkout/server',
    'On a web runtime only memory: opens (one journal per isolate); a durable journal runs on a Node server.',
  );
}
