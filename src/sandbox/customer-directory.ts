/**
 * Customer ids per application and phone number: the same phone in the same
 * application is the same customer (`py_…`). Bounded: past the limit
 * the longest-unseen customer is forgotten and would get a new id.
 */
import { ID_PREFIX } from '../shared/service-contract.js';
import { randomId } from './random-id.js';

/** Remembers which customer id each (application, phone number) pair has. */
export class CustomerDirectory {
  readonly #maxCustomers: number;
  readonly #ids = new Map<string, string>();

  constructor(maxCustomers: number) {
    this.#maxCustomers = maxCustomers;
  }

  /** The customer id of this phone number in this application, created on first sight. */
  idFor(applicationId: string, phoneNumber: string): string {
    const key = `${applicationId} ${phoneNumber}`;
    let id = this.#ids.get(key);
    if (id === undefined) {
      id = randomId(ID_PREFIX.customer);
    } else {
      // Re-inserting moves the entry to the back of the Map's order: most recently seen.
      this.#ids.delete(key);
    }
    this.#ids.set(key, id);
    if (this.#ids.size > this.#maxCustomers) {
      const longestUnseen = this.#ids.keys().next().value as string;
      this.#ids.delete(longestUnseen);
    }
    return id;
  }
}
