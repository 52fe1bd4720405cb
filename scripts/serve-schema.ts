/**
 * Writes schema/pay-checkout.schema.json from serve's zod schema:
 * `npx tsx scripts/serve-schema.ts` after changing src/serve/serve-config.ts
 * (test/node/serve/config-schema.test.ts fails until the two agree).
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SERVE_SCHEMA_PATH, serveConfigSchemaText } from '../src/serve/config-json-schema.js';

const target = join(fileURLToPath(new URL('..', import.meta.url)), SERVE_SCHEMA_PATH);
mkdirSync(dirname(target), { recursive: true });
writeFileSync(target, serveConfigSchemaText());
// In the repository's own JSON style, so the linter passes it as written.
execFileSync('npx', ['biome', 'format', '--write', target], { stdio: 'inherit' });
console.log(`wrote ${SERVE_SCHEMA_PATH}`);
