/**
 * The journal contract on the in-memory store, the one tests and demos use.
 */
import { MemoryJournal } from '../../../src/server/journal/memory-journal.js';
import { journalContract } from '../../fixtures/journal-contract.js';

journalContract('memory:', {
  async fresh(clock) {
    const journal = new MemoryJournal(clock);
    return {
      journal,
      // One process's memory: a second relay would have a journal of its own.
      openAnother: async () => journal,
      rawRows: async () => journal.rawRows().map((row) => ({ ...row })),
      dispose: () => journal.close(),
    };
  },
});
