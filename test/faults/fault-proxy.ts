/**
 * A real HTTP proxy on loopback that breaks the wire on purpose (issue #7):
 * it sits in front of a real server (the relay, or the sandbox) and, request
 * by request, forwards, answers by itself (`500`, `503`, `429`…), holds the
 * answer back past a client's time-out, cuts or resets the connection before
 * or after the upstream acted; and it can go offline (every connection reset
 * as it arrives) and come back. The fault suite, the relay and service-client
 * tests share it (test/node/wire-fault-proxy.ts re-exports it). Not a test file.
 */
import {
  createServer,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** What the proxy does with one request. */
export type FaultPlan =
  | { kind: 'forward' }
  /** Forward, wait for the complete upstream answer, then close the client's socket: the answer is lost after the upstream acted. */
  | { kind: 'cut-after-upstream' }
  /** The same, but the connection is reset (TCP RST) rather than closed. */
  | { kind: 'reset-after-upstream' }
  /** Reset the connection without forwarding: the upstream never sees the request. */
  | { kind: 'reset' }
  /** Forward at once but pass the answer on only after `ms` (beyond a client's time-out, the client gives up). */
  | { kind: 'delay-answer'; ms: number }
  /** Answer by itself; the upstream never sees the request. */
  | { kind: 'answer'; status: number; body: unknown; headers?: Record<string, string> };

/** What the proxy does with each request: gets its 0-based index and the request. */
export type FaultPlanner = (index: number, request: ProxiedRequest) => FaultPlan;

/** A request as the proxy saw it, what it did, and the status the upstream answered (when forwarded). */
export interface ProxiedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** The fault applied; `forward` when none. */
  fault?: FaultPlan['kind'];
  upstreamStatus?: number;
  upstreamHeaders?: Headers;
}

/** A running proxy. */
export interface FaultProxy {
  /** The proxy's URL; it adds the target's base path, so use it where the target's base URL would go. */
  url: string;
  /** Every request seen, in order (none while offline: those connections carry no request). */
  requests: ProxiedRequest[];
  /** True while every connection is reset as it arrives. */
  readonly offline: boolean;
  /** Connections reset because the proxy was offline. */
  readonly refusedConnections: number;
  /** Goes offline (open connections are reset too) or back online. */
  setOffline(offline: boolean): void;
  close(): Promise<void>;
}

const HOP_BY_HOP = /^(?:host|connection|content-length|transfer-encoding|keep-alive|accept-encoding)$/i;

/**
 * Starts a proxy to `targetUrl` (origin plus an optional base path). `plan`
 * decides each request's fault; the default forwards everything.
 */
export async function startFaultProxy(
  targetUrl: string,
  plan: FaultPlanner = () => ({ kind: 'forward' }),
): Promise<FaultProxy> {
  const target = new URL(targetUrl);
  const basePath = target.pathname.replace(/\/+$/, '');
  const requests: ProxiedRequest[] = [];
  const sockets = new Set<Socket>();
  let offline = false;
  let refusedConnections = 0;

  const server: Server = createServer((incoming, outgoing) => {
    serve(incoming, outgoing).catch(() => incoming.socket.destroy());
  });
  server.on('connection', (socket: Socket) => {
    if (offline) {
      refusedConnections++;
      socket.resetAndDestroy();
      return;
    }
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
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
    seen.fault = step.kind;
    if (step.kind === 'reset') {
      incoming.socket.resetAndDestroy();
      return;
    }
    if (step.kind === 'answer') {
      outgoing.writeHead(step.status, { 'content-type': 'application/json', ...step.headers });
      outgoing.end(JSON.stringify(step.body));
      return;
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(incoming.headers)) {
      if (value === undefined || HOP_BY_HOP.test(name)) continue;
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
    // The upstream acted and answered; the client never hears it.
    if (step.kind === 'cut-after-upstream') {
      incoming.socket.destroy();
      return;
    }
    if (step.kind === 'reset-after-upstream') {
      incoming.socket.resetAndDestroy();
      return;
    }
    if (step.kind === 'delay-answer') await new Promise((resolve) => setTimeout(resolve, step.ms));
    if (outgoing.destroyed || incoming.socket.destroyed) return;
    const answerHeaders: Record<string, string> = {};
    upstream.headers.forEach((value, name) => {
      if (!/^(?:connection|content-length|transfer-encoding|keep-alive|content-encoding)$/i.test(name))
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
    get offline() {
      return offline;
    },
    get refusedConnections() {
      return refusedConnections;
    },
    setOffline(value) {
      offline = value;
      if (!value) return;
      for (const socket of sockets) socket.resetAndDestroy();
      sockets.clear();
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The faults of one route, in order: the first matching request gets the first plan, and so on. */
export type RouteFaults = Partial<Record<string, readonly FaultPlan[]>>;

/**
 * A planner that applies scripted faults per route: `routes` maps a path
 * ending (`/orders`, `/lookup`, `/orders/new`) to the plans for the first
 * requests to it; everything after them, and every other path, is forwarded.
 */
export function scriptedFaults(routes: RouteFaults): FaultPlanner {
  const seen = new Map<string, number>();
  return (_index, request) => {
    const path = request.path.split('?')[0] ?? '';
    for (const [ending, plans] of Object.entries(routes)) {
      if (!plans || !path.endsWith(ending)) continue;
      const count = seen.get(ending) ?? 0;
      seen.set(ending, count + 1);
      return plans[count] ?? { kind: 'forward' };
    }
    return { kind: 'forward' };
  };
}
