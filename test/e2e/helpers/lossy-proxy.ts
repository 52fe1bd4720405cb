/**
 * A real TCP proxy in front of the demo server that loses one answer on the
 * wire: it forwards a matching request, lets the server act on it, and cuts
 * the connection the moment the server's answer arrives, so the browser
 * never reads it. This is the fault a flaky mobile network gives a shopper,
 * and what `page.route` cannot do (it answers before or instead of the server).
 */

import type { AddressInfo } from 'node:net';
import { connect, createServer, type Socket } from 'node:net';

/** A running proxy. */
export interface LossyProxy {
  /** `http://127.0.0.1:PORT`: open the page here instead of on the server. */
  url: string;
  /** Answers the server sent that the browser never got. */
  readonly dropped: number;
  /** Requests matching the rule that reached the server. */
  readonly matched: number;
  close(): Promise<void>;
}

/**
 * Starts a proxy to `target` (`http://127.0.0.1:PORT`) that drops the answers
 * of the first `dropCount` requests whose request line starts with `requestLine`
 * (`POST /api/checkout/orders`).
 */
export async function startLossyProxy(
  target: string,
  rule: { requestLine: string; dropCount?: number },
): Promise<LossyProxy> {
  const { hostname, port } = new URL(target);
  let toDrop = rule.dropCount ?? 1;
  let dropped = 0;
  let matched = 0;
  const sockets = new Set<Socket>();

  const server = createServer((client) => {
    const upstream = connect(Number(port), hostname);
    sockets.add(client).add(upstream);
    // Browsers do not pipeline HTTP/1.1: the next bytes from the server answer the last request sent.
    let dropNextAnswer = false;
    client.on('data', (chunk: Buffer) => {
      if (chunk.toString('latin1', 0, rule.requestLine.length + 1) === `${rule.requestLine} `) {
        matched += 1;
        if (toDrop > 0) {
          toDrop -= 1;
          dropNextAnswer = true;
        }
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      if (dropNextAnswer) {
        dropped += 1;
        client.destroy();
        upstream.destroy();
        return;
      }
      client.write(chunk);
    });
    const closeBoth = (): void => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('close', closeBoth);
    upstream.on('close', closeBoth);
    client.on('error', closeBoth);
    upstream.on('error', closeBoth);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${address.port}`,
    get dropped() {
      return dropped;
    },
    get matched() {
      return matched;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
