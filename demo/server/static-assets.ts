/**
 * The demo page's built files, read into memory once at start. Serving from a
 * map of known paths means no request path ever reaches the file system, so
 * no `..`, encoded slash or symlink can leave the build folder; and a rebuild
 * in the working tree cannot pull files from under a running server.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { extname, join, relative, sep } from 'node:path';
import { gzipSync } from 'node:zlib';

const CONTENT_TYPES: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.map': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.sha384': 'text/plain; charset=utf-8',
};

const COMPRESSIBLE = /^(?:text\/|application\/json|image\/svg\+xml)/;

/** One file ready to send. */
export interface StaticAsset {
  body: Buffer;
  /** Gzip of the body when that is smaller, for clients that accept it. */
  gzip: Buffer | undefined;
  contentType: string;
  cacheControl: string;
  etag: string;
}

/** URL path (`/assets/index-1a2b.js`) to the file served there. */
export type StaticAssets = Map<string, StaticAsset>;

/** Makes a servable asset of a file's bytes; hashed build output may be cached for good. */
export function toStaticAsset(urlPath: string, body: Buffer): StaticAsset {
  const contentType = CONTENT_TYPES[extname(urlPath).toLowerCase()] ?? 'application/octet-stream';
  const compressed = COMPRESSIBLE.test(contentType) ? gzipSync(body, { level: 9 }) : undefined;
  return {
    body,
    gzip: compressed && compressed.byteLength < body.byteLength ? compressed : undefined,
    contentType,
    // Vite names everything under assets/ after its content hash.
    cacheControl: urlPath.startsWith('/assets/') ? 'public, max-age=31536000, immutable' : 'no-cache',
    etag: `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`,
  };
}

/** Reads every file under `root` into a map keyed by URL path; `/` serves `/index.html`. */
export function loadStaticAssets(root: string): StaticAssets {
  const assets: StaticAssets = new Map();
  if (!existsSync(root)) return assets;
  const walk = (folder: string): void => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      const stats = statSync(path);
      if (stats.isDirectory()) walk(path);
      else if (stats.isFile()) {
        const urlPath = `/${relative(root, path).split(sep).join('/')}`;
        assets.set(urlPath, toStaticAsset(urlPath, readFileSync(path)));
      }
    }
  };
  walk(root);
  const index = assets.get('/index.html');
  if (index) assets.set('/', index);
  return assets;
}

/**
 * Answers a GET or HEAD for a known path, with gzip when accepted and `304`
 * for a matching `If-None-Match`; undefined when the path is not one of ours.
 */
export function serveStaticAsset(assets: StaticAssets, request: Request): Response | undefined {
  const asset = assets.get(new URL(request.url).pathname);
  if (!asset) return undefined;
  const headers = new Headers({
    'content-type': asset.contentType,
    'cache-control': asset.cacheControl,
    etag: asset.etag,
    vary: 'Accept-Encoding',
  });
  if (request.headers.get('if-none-match') === asset.etag) {
    return new Response(null, { status: 304, headers });
  }
  const acceptsGzip = /\bgzip\b/.test(request.headers.get('accept-encoding') ?? '');
  const body = acceptsGzip && asset.gzip ? asset.gzip : asset.body;
  if (body === asset.gzip) headers.set('content-encoding', 'gzip');
  headers.set('content-length', String(body.byteLength));
  return new Response(request.method === 'HEAD' ? null : new Uint8Array(body), { status: 200, headers });
}
