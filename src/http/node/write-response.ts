/**
 * Writes a web `Response` to a Node `ServerResponse`: its status, headers
 * (each `Set-Cookie` on its own line) and whole body with its length.
 */
import type { ServerResponse } from 'node:http';

/** Writes `response`; `closeAfter` asks the client to close the connection (after a refused body). */
export async function writeResponse(
  outgoing: ServerResponse,
  response: Response,
  closeAfter = false,
): Promise<void> {
  const headers: Record<string, string | string[]> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  if (headers['set-cookie'] !== undefined) headers['set-cookie'] = response.headers.getSetCookie();
  if (closeAfter) headers.connection = 'close';
  const body = response.body ? Buffer.from(await response.arrayBuffer()) : undefined;
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
