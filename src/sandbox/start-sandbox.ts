/**
 * Starts a sandbox on `node:http` (Node only: the sandbox's Node entry,
 * index.ts, exports it; the web entry has a `startSandbox` that rejects).
 * `listen` is imported when called, so importing this module loads no
 * `node:` module.
 */
import type { RunningServer } from '../http/node/listen.js';
import { createSandbox, type Sandbox, type SandboxOptions } from './sandbox.js';

/** Options of {@link startSandbox}: the sandbox's, and where to listen. */
export interface StartSandboxOptions extends SandboxOptions {
  /** Default 0: a free port. */
  port?: number;
  /** Default `127.0.0.1`. */
  host?: string;
}

/** A sandbox listening on a port. */
export interface RunningSandbox {
  /** `http://127.0.0.1:PORT` followed by the base path: the service's base URL. */
  url: string;
  sandbox: Sandbox;
  /** Stops the server and closes its connections. */
  close(): Promise<void>;
}

/**
 * Creates a sandbox and serves it over HTTP (port 0 by default: a free port).
 * Node, Bun and Deno only: where `pay-checkout/sandbox` resolves to its web
 * entry (edge bundlers) it rejects, and `createSandbox().handle` is served by
 * the runtime instead.
 */
export async function startSandbox(options: StartSandboxOptions = {}): Promise<RunningSandbox> {
  const { port = 0, host = '127.0.0.1', ...sandboxOptions } = options;
  const sandbox = createSandbox(sandboxOptions);
  const { listen } = await import('../http/node/listen.js');
  const server: RunningServer = await listen(sandbox.node, { port, host });
  const basePath = (sandboxOptions.basePath ?? '').replace(/\/+$/, '');
  return { url: `${server.url}${basePath}`, sandbox, close: () => server.close() };
}
