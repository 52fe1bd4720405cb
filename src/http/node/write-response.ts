/**
 * Writes a web `Response` to a Node `ServerResponse`: its status, headers
 * (each `Set-Cookie` on its own line) and whole body with its length.
 */
import type { ServerResponse } from 'node:http';
import { type LightAnswer, lightAnswerOf } from './light-response.js';

/** Writes `response`; `closeAfter` asks the client to close the connection (after a refused body). */
export async function writeResponse(
  outgoing: ServerResponse,
  response: Response,
  closeAfter = false,
): Promise<void> {
  const light = lightAnswerOf(response);
  if (light) {
    writeLightAnswer(outgoing, light, closeAfter);
    return;
  }
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  if (headers['set-cookie'] !== undefined) headers['set-cookie'] = response.headers.getSetCookie();
  if (closeAfter) headers.connection = 'close';
  const body = response.body ? await readWhole(response.body) : undefined;
  // The whole body is known, so say its length rather than send it chunked.
  if (
    body !== undefined &&
    headers['content-length'] === undefined &&
    headers['transfer-encoding'] === undefined
  ) {
    headers['content-length'] = String(body.byteLength);
  }
  outgoing.writeHead(response.status, headers);
  outgoing.end(body);
}

/**
 * The body's bytes. Read from its stream directly: a handler's JSON is one
 * chunk, and this costs less than `arrayBuffer()`'s general reader.
 */
async function readWhole(body: ReadableStream<Uint8Array>): Promise<Buffer> {
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  for (let next = await reader.read(); !next.done; next = await reader.read()) chunks.push(next.value);
  const only = chunks.length === 1 ? (chunks[0] as Uint8Array) : undefined;
  return only ? Buffer.from(only.buffer, only.byteOffset, only.byteLength) : Buffer.concat(chunks);
}

/** Writes a light JSON answer (light-response.ts) as it is: no web `Response` was built for it. */
function writeLightAnswer(outgoing: ServerResponse, light: LightAnswer, closeAfter: boolean): void {
  const headers: Record<string, string | string[]> = {};
  if (light.headers instanceof Headers) {
    light.headers.forEach((value, name) => {
      headers[name] = value;
    });
    if (headers['set-cookie'] !== undefined) headers['set-cookie'] = light.headers.getSetCookie();
  } else Object.assign(headers, light.headers);
  headers['content-length'] = String(Buffer.byteLength(light.text, 'utf8'));
  if (closeAfter) headers.connection = 'close';
  outgoing.writeHead(light.status, headers);
  // As text, Node sends the head and the body in one write, with no buffer made for either.
  outgoing.end(light.text, 'utf8');
}
