/**
 * A tiny real HTTP proxy for fault tests of the service client and the relay:
 * it sits on loopback in front of a real server (the sandbox, or a relay) and,
 * request by request, forwards, answers by itself, holds the answer back, or
 * forwards and then cuts the client's connection so the answer is lost after
 * the upstream acted. Not a test file: the tests import it.
 */
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo } from 'node:net';

/** What the proxy does with one request. */
export type FaultPlan =
  | { kind: 'forward' }
  /** Forward, wait for the complete upstream answer, then destroy the client socket. */
  | { kind: 'cut-after-upstream' }
  /** Forward at once but pass the answer on only after `ms`. */
  | { kind: 'delay-answer'; ms: number }
  /** Answer by itself; the upstream never sees the request. */
  | { kind: 'answer'; status: number; body: unknown; headers?: Record<string, string> };

/** A request as the proxy saw it, and the status the upstream answered (when forwarded). */
export interface ProxiedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  upstreamStatus?: number;
  upstreamHeaders?: Headers;
}

/** A running proxy. */
export interface FaultProxy {
  /** The proxy's URL; it adds the target's base path, so use it where the target's base URL would go. */
  url: string;
  /** Every request seen, in order. */
  requests: ProxiedRequest[];
  close(): Promise<void>;
}

/**
 * Starts a proxy to `targetUrl` (origin plus an optional base path). `plan`
 * gets each request's 0-based index and the request; the default forwards.
 */
export async function startFaultProxy(
  targetUrl: string,
  plan: (index: number, request: ProxiedRequest) => FaultPlan = () => ({ kind: 'forward' }),
): Promise<FaultProxy> {
  const target = new URL(targetUrl);
  const basePath = target.pathname.replace(/\/+$/, '');
  const requests: ProxiedRequest[] = [];
  const server: Server = createServer((incoming, outgoing) => {
    serve(incoming, outgoing).catch(() => incoming.socket.destroy());
  });
  async function serve(incoming: IncomingMessage, outgoing: ServerResponse): Promise<void> {
    const chunks: Buffer[] = [];
    for await (const chunk of incoming) chunks.push(chunk as Buffer);
    const seen: ProxiedRequest = {
      method: incoming.method ?? 'GET',
      path: incoming.url ?? '/',
      headers: incoming.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    };
    const index = requests.push(seen) - 1;
    const step = plan(index, seen);
    if (step.kind === 'answer') {
      outgoing.writeHead(step.status, { 'content-type': 'application/json', ...step.headers });
      outgoing.end(JSON.stringify(step.body));
      return;
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(incoming.headers)) {
      if (value === undefined || /^(?:host|connection|content-length|transfer-encoding)$/i.test(name))
        continue;
      headers.set(name, Array.isArray(value) ? value.join(', ') : value);
    }
    const upstream = await fetch(`${target.origin}${basePath}${seen.path}`, {
      method: seen.method,
      headers,
      body: seen.method === 'GET' || seen.method === 'HEAD' ? undefined : seen.body,
    });
    const answer = Buffer.from(await upstream.arrayBuffer());
    seen.upstreamStatus = upstream.status;
    seen.upstreamHeaders = upstream.headers;
    if (step.kind === 'cut-after-upstream') {
      // The upstream acted and answered; the client never hears it.
      incoming.socket.destroy();
      return;
    }
    if (step.kind === 'delay-answer') await new Promise((resolve) => setTimeout(resolve, step.ms));
    if (outgoing.destroyed) return;
    const answerHeaders: Record<string, string> = {};
    upstream.headers.forEach((value, name) => {
      if (!/^(?:connection|content-length|transfer-encoding|keep-alive)$/i.test(name))
        answerHeaders[name] = value;
    });
    outgoing.writeHead(upstream.status, answerHeaders);
    outgoing.end(answer);
  }
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
