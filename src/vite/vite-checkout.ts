/**
 * The relay and the embedded sandbox of one plugin, for its Vite servers (dev, preview):
 * a connect middleware that routes by the full request path, the lines the
 * server prints on start, and `close()`. Mounted with no path of its own, so
 * connect leaves `req.url` whole and both handlers see the paths the browser
 * asked for.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { isLocalRequest } from '../http/node/local-request.js';
import { toNodeListener } from '../http/node/node-listener.js';
import { SANDBOX_KEYS } from '../sandbox/authentication.js';
import { SANDBOX_CONTROL_PATH } from '../sandbox/control-surface.js';
import { createSandbox, type Sandbox } from '../sandbox/sandbox.js';
import type { CheckoutRelayEvent } from '../server/events/relay-events.js';
import { createCheckoutRelay } from '../server/node.js';
import { randomLookupSecret } from '../server/tokens/lookup-token.js';
import { SERVICE_MAX_BODY_BYTES } from '../shared/service-contract.js';
import { createRelayLog } from './relay-log.js';
import { isUnder, type ResolvedViteOptions } from './vite-options.js';

/** Where the plugin writes: Vite's logger has these two. */
export interface CheckoutLogger {
  info(message: string): void;
  warn(message: string): void;
}

/** The relay and sandbox of one plugin, mounted on each of its servers. */
export interface ViteCheckout {
  /** Answers the relay's and the sandbox's paths; calls `next()` for every other path. */
  middleware(request: IncomingMessage, response: ServerResponse, next: () => void): void;
  /** The lines printed under Vite's own URLs; `origin` is the server's, when known. */
  startupLines(origin: string | undefined): string[];
  /** Stops the relay (its journal and watcher, when given); the sandbox holds nothing to stop. */
  close(): Promise<void>;
}

/**
 * The origin the relay's service URL names for the in-process sandbox. The
 * relay's calls never reach a socket: its `fetch` hands each request to the
 * sandbox's handler, the same one that answers `/sandbox` on the dev server,
 * so they work whatever host, port or HTTPS setting the dev server has.
 */
const IN_PROCESS_ORIGIN = 'http://localhost';

/** Creates the relay (and the sandbox, unless a service is given) of one plugin. */
export function createViteCheckout(options: ResolvedViteOptions, logger: CheckoutLogger): ViteCheckout {
  const sandbox =
    options.sandbox &&
    createSandbox({ basePath: options.sandbox.path, approveAfterMs: options.sandbox.approveAfterMs });
  const logLine = createRelayLog();
  const onEvent = (event: CheckoutRelayEvent): void | Promise<void> => {
    const line = logLine(event);
    if (line?.warning) logger.warn(`  pay-checkout: ${line.text}`);
    else if (line) logger.info(`  pay-checkout: ${line.text}`);
    // Returned, so the relay swallows the merchant's rejections as it does for any onEvent.
    return options.relay.onEvent?.(event);
  };
  const relay = createCheckoutRelay({
    ...options.relay,
    // Random per server: tokens outlive neither a restart nor the sandbox's orders. Pass one to keep them.
    lookupSecret: options.relay.lookupSecret ?? randomLookupSecret(),
    priceCart: options.priceCart,
    ...(sandbox
      ? {
          secretKey: SANDBOX_KEYS.secret,
          baseUrl: `${IN_PROCESS_ORIGIN}${options.sandbox?.path}`,
          fetch: inProcessFetch(sandbox),
        }
      : { secretKey: options.service?.secretKey ?? '', baseUrl: options.service?.baseUrl ?? '' }),
    onEvent,
  });
  const sandboxListener = sandbox && toNodeListener(sandbox.handle, { maxBodyBytes: SERVICE_MAX_BODY_BYTES });
  const sandboxPath = options.sandbox?.path;

  return {
    middleware(request, response, next) {
      const path = (request.url ?? '/').split('?', 1)[0] as string;
      if (isUnder(path, options.relayPath)) {
        relay.node(request, response);
      } else if (sandboxListener && sandboxPath && isUnder(path, sandboxPath)) {
        if (isLocalRequest(request)) sandboxListener(request, response);
        else response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('Not found.\n');
      } else {
        next();
      }
    },
    startupLines: (origin) => startupLines(options, origin ?? ''),
    close: () => relay.close(),
  };
}

function inProcessFetch(sandbox: Sandbox): typeof fetch {
  return (input, init) => sandbox.handle(new Request(input, init));
}

function startupLines(options: ResolvedViteOptions, origin: string): string[] {
  const relay = `${origin}${options.relayPath}`;
  if (!options.sandbox) {
    return [
      `  ➜  pay-checkout relay:   ${relay}/orders, ${relay}/lookup, ${relay}/price`,
      `  ➜  payments through:     ${options.service?.baseUrl} (your test key)`,
    ];
  }
  const sandbox = `${origin}${options.sandbox.path}`;
  const control = `${sandbox}${SANDBOX_CONTROL_PATH}`;
  return [
    `  ➜  pay-checkout relay:   ${relay}/orders, ${relay}/lookup, ${relay}/price`,
    `  ➜  pay-checkout sandbox: ${sandbox} (test mode, offline; the payer approves after ${options.sandbox.approveAfterMs} ms)`,
    `     approve or decline now: POST ${control}/approve or ${control}/decline with {"order_id":"or_…"}`,
  ];
}
