/**
 * Writes schema/pay-checkout.schema.json from serve's zod schema:
 * `npx tsx scripts/serve-schema.ts` after changing src/serve/serve-config.ts
 * (test/node/serve/config-schema.test.ts fails until the two agree).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVE_SCHEMA_PATH, serveConfigSchemaText } from '../src/serve/config-json-schema.js';

const target = join(fileURLToPath(new URL('..', import.meta.url)), SERVE_SCHEMA_PATH);
mkdirSync(dirname(target), { recursive: true });
writeFileSync(target, serveConfigSchemaText());
console.log(`wrote ${SERVE_SCHEMA_PATH}`);
