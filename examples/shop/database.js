import { mkdirSync } from 'node:fs';
import Database from 'libsql';

mkdirSync('.data', { recursive: true });
/** The shop's own database, beside the relay's journal: its carts and its shipments. */
export const database = new Database('.data/shop.db');
