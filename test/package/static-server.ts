/**
 * A static file server for the consumer app's build: `node:http` on
 * 127.0.0.1, a free port, nothing but files under one directory.
 */
import { readFile } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';
import { listen } from '../../src/server/index.js';

const CONTENT_TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.map': 'application/json',
};

/** A running static server. */
export interface StaticServer {
  /** `http://127.0.0.1:PORT` */
  url: string;
  close(): Promise<void>;
}

/** Serves the files under `root` (`/` is `index.html`); anything else is `404`. */
export async function serveDirectory(root: string): Promise<StaticServer> {
  return listen((request, response) => {
    const pathname = decodeURIComponent(new URL(request.url ?? '/', 'http://localhost').pathname);
    const file = normalize(join(root, pathname === '/' ? 'index.html' : pathname));
    if (!file.startsWith(root + sep)) {
      response.writeHead(404).end();
      return;
    }
    readFile(file).then(
      (body) => {
        const type = CONTENT_TYPES[extname(file)] ?? 'application/octet-stream';
        response.writeHead(200, { 'content-type': type, 'content-length': body.byteLength }).end(body);
      },
      () => response.writeHead(404).end(),
    );
  });
}
