/**
 * Fails the build when the embed bundle is over its gzip budget, and prints
 * the Subresource Integrity value for the README's `<script integrity=…>` snippet.
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { EMBED_BUDGET_GZIP_BYTES } from './size-budget.mjs';

const path = 'dist/pay-checkout.embed.js';

const source = readFileSync(path);
const gzipBytes = gzipSync(source, { level: 9 }).byteLength;
const integrity = `sha384-${createHash('sha384').update(source).digest('base64')}`;
writeFileSync(`${path}.sha384`, `${integrity}\n`);

console.log(`${path}: ${source.byteLength} B, ${gzipBytes} B gzip (budget ${EMBED_BUDGET_GZIP_BYTES} B)`);
console.log(`integrity: ${integrity}`);
if (gzipBytes > EMBED_BUDGET_GZIP_BYTES) {
  console.error(`The embed bundle is ${gzipBytes - EMBED_BUDGET_GZIP_BYTES} B over its gzip budget.`);
  process.exit(1);
}
