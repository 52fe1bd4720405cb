/**
 * `pay-checkout/vite`: the relay and the sandbox inside `vite dev` and
 * `vite preview`, with one line in `vite.config.ts`:
 *
 * ```ts
 * plugins: [payCheckout({ priceCart })]
 * ```
 *
 * The relay answers `/api/checkout/orders`, `/api/checkout/lookup` and `/api/checkout/price` (the
 * element's documented URLs), and the embedded sandbox (test mode, offline,
 * key `sk_test_sandbox`) answers `/sandbox` with its control surface. Node
 * only: Vite runs it while reading its config, and no page imports it, so it
 * never reaches a browser bundle; the secret key stays in the Vite process.
 * Vite's types only are imported, so this module loads no `vite`.
 */
import type { Plugin, PreviewServer, ViteDevServer } from 'vite';
import { type CheckoutLogger, createViteCheckout, type ViteCheckout } from './vite-checkout.js';
import { type PayCheckoutViteOptions, type ResolvedViteOptions, resolveViteOptions } from './vite-options.js';

export type {
  PayCheckoutRelayOptions,
  PayCheckoutSandboxOptions,
  PayCheckoutViteOptions,
} from './vite-options.js';

/**
 * The Vite plugin. Throws a TypeError when `vite.config.ts` is read for
 * options that cannot work (no `priceCart`, a live key, overlapping paths).
 */
export function payCheckout(options: PayCheckoutViteOptions): Plugin {
  const resolved = resolveViteOptions(options);
  const checkouts = sharedCheckout(resolved);
  // Servers in middleware mode have no HTTP server of their own to tell us they closed.
  let devWithoutHttpServer = 0;
  let previewWithoutHttpServer = 0;
  return {
    name: 'pay-checkout',
    // Used directly, not returned: these middlewares run before Vite's own, so no SPA fallback answers a POST.
    configureServer(server) {
      if (!mountCheckout(server, checkouts)) devWithoutHttpServer += 1;
    },
    configurePreviewServer(server) {
      if (!mountCheckout(server, checkouts)) previewWithoutHttpServer += 1;
    },
    async closeServer() {
      if (devWithoutHttpServer === 0) return;
      devWithoutHttpServer -= 1;
      await checkouts.release();
    },
    async closePreviewServer() {
      if (previewWithoutHttpServer === 0) return;
      previewWithoutHttpServer -= 1;
      await checkouts.release();
    },
  };
}

export default payCheckout;

/** The one relay and sandbox of a plugin, whichever of its servers are open. */
interface SharedCheckout {
  /** The checkout, created for the first server that asks. */
  acquire(logger: CheckoutLogger): ViteCheckout;
  /** One server closed: the checkout closes with the last one. */
  release(): Promise<void>;
}

/**
 * One checkout for all the servers a plugin serves at once. A restart hands
 * the same plugin (an inline config's) to the new server before it closes the
 * old one: were each server's relay its own, the old one's close would close
 * the journal both were given, and every create after the restart would fail.
 */
function sharedCheckout(options: ResolvedViteOptions): SharedCheckout {
  let checkout: ViteCheckout | undefined;
  let servers = 0;
  return {
    acquire(logger) {
      checkout ??= createViteCheckout(options, logger);
      servers += 1;
      return checkout;
    },
    async release() {
      servers -= 1;
      if (servers > 0 || checkout === undefined) return;
      const closing = checkout;
      checkout = undefined;
      await closing.close();
    },
  };
}

/** Mounts the shared checkout on `server`; true when the server has an HTTP server that says when it closes. */
function mountCheckout(server: ViteDevServer | PreviewServer, checkouts: SharedCheckout): boolean {
  const logger = server.config.logger;
  const checkout = checkouts.acquire(logger);
  server.middlewares.use(checkout.middleware);
  // One release per server, restarts included: Vite closes the old HTTP server when it restarts.
  server.httpServer?.once('close', () => {
    checkouts.release().catch((error: unknown) => {
      logger.warn(`  pay-checkout: the relay did not close cleanly: ${(error as Error)?.message ?? error}`);
    });
  });
  const printUrls = server.printUrls.bind(server);
  server.printUrls = () => {
    printUrls();
    for (const line of checkout.startupLines(originOf(server.resolvedUrls))) logger.info(line);
  };
  return server.httpServer !== null && server.httpServer !== undefined;
}

/** The server's first local origin (`http://localhost:5173`); the checkout's paths sit at the root, whatever `base` is. */
function originOf(urls: ViteDevServer['resolvedUrls']): string | undefined {
  const local = urls?.local[0] ?? urls?.network[0];
  return local === undefined ? undefined : new URL(local).origin;
}
