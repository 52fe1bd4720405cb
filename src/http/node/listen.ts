/**
 * Serves a Node listener on a port: what tests, the demo and `startSandbox`
 * use. `node:http` is imported when called, so importing this module loads
 * no `node:` module.
 */
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { NodeListener } from './node-listener.js';

/** A server started on loopback (or the given host), with its address and a `close()`. */
export interface RunningServer {
  /** `http://127.0.0.1:PORT`, no trailing slash. */
  url: string;
  /** The port it listens on. */
  port: number;
  /** The `node:http` server. */
  server: Server;
  /** Stops accepting connections and closes idle ones. */
  close(): Promise<void>;
}

/** Where {@link listen} listens. */
export interface ListenOptions {
  /** Default 0: a free port. */
  port?: number;
  /** Default `127.0.0.1`. */
  host?: string;
}

/** Starts a `node:http` server for a listener; `port: 0` picks a free port. */
export async function listen(
  listener: NodeListener,
  { port = 0, host = '127.0.0.1' }: ListenOptions = {},
): Promise<RunningServer> {
  const { createServer } = await import('node:http');
  const server = createServer(listener);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  return {
    url: `http://${urlHost}:${address.port}`,
    port: address.port,
    server,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
