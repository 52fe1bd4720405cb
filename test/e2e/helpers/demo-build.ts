/**
 * Where `npm run test:e2e` builds the demo page: a folder of the tests' own,
 * so a concurrent `npm run build` (which empties `dist/`) or another build of
 * the page cannot pull files from under a run. The server is the same one
 * `npm start` runs, given this folder as its `pageRoot`.
 */
import { fileURLToPath } from 'node:url';

/** The tests' build of the demo page (`vite build --outDir .tmp/e2e-demo`). */
export const E2E_PAGE_ROOT = fileURLToPath(new URL('../../../.tmp/e2e-demo', import.meta.url));
