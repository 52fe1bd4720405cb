/**
 * The databases the journal runs on, by the name a store gives: adding one is
 * one more object of `JournalDialect` here, and a store that runs it.
 */
import type { JournalDialect } from './dialect.js';
import { postgres } from './postgres.js';
import { sqlite } from './sqlite.js';

/** Every database the journal speaks, by name. */
export const JOURNAL_DIALECTS = { sqlite, postgres } as const satisfies Record<string, JournalDialect>;

/** The name of a database the journal speaks. */
export type SqlDialect = keyof typeof JOURNAL_DIALECTS;
