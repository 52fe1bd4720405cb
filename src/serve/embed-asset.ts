/**
 * The package's built embed (`dist/pay-checkout.embed.js`), served by serve
 * to shop pages on other origins: with `Access-Control-Allow-Origin: *` so
 * `<script integrity crossorigin>` can check it, and its Subresource
 * Integrity hash in an `Integrity` header and the start log, so a shop can
 * pin exactly the script it was given.
 */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';

/** The embed script, ready to serve. */
export interface EmbedAsset {
  readonly code: Buffer;
  /** `sha384-…`, the value of a `<script integrity>`. */
  readonly integrity: string;
  /** The answer's headers. */
  readonly headers: Readonly<Record<string, string>>;
}

/**
 * Where the built embed is: beside the compiled serve (`dist/serve/` → `dist/`),
 * or, run from the sources, in the repository's `dist/`.
 */
const EMBED_CANDIDATES = ['../pay-checkout.embed.js', '../../dist/pay-checkout.embed.js'];

/** The embed `code` as served: its hash and headers. */
export function embedAsset(code: string | Buffer): EmbedAsset {
  const bytes = typeof code === 'string' ? Buffer.from(code) : code;
  const integrity = `sha384-${createHash('sha384').update(bytes).digest('base64')}`;
  return {
    code: bytes,
    integrity,
    headers: {
      'content-type': 'text/javascript; charset=utf-8',
      'content-length': String(bytes.length),
      'access-control-allow-origin': '*',
      'cross-origin-resource-policy': 'cross-origin',
      'x-content-type-options': 'nosniff',
      // Not fingerprinted in its name: a shop page re-checks it every few minutes, by its hash.
      'cache-control': 'public, max-age=300',
      etag: `"${integrity}"`,
      integrity,
    },
  };
}

/** The package's built embed, or `undefined` when it was never built (serve run from sources). */
export async function readBuiltEmbed(): Promise<EmbedAsset | undefined> {
  for (const candidate of EMBED_CANDIDATES) {
    try {
      return embedAsset(await readFile(fileURLToPath(new URL(candidate, import.meta.url))));
    } catch {
      // The next place.
    }
  }
  return undefined;
}
