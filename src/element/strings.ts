/**
 * The English texts under their former path, for the fault suite
 * (test/faults/wire-faults.test.ts) until it imports `locale/en.js`.
 * The element's texts live in `locale/`.
 */
export { EN_STRINGS } from './locale/en.js';
