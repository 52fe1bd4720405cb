/**
 * `pay-checkout/vite`: the relay and the sandbox inside `vite dev` and
 * `vite preview`, with one line in `vite.config.ts`:
 *
 * ```ts
 * plugins: [payCheckout({ priceCart })]
 * ```
 *
 * The relay answers `/api/checkout/orders` and `/api/checkout/lookup` (the
 * element's documented URLs), and the embedded sandbox (test mode, offline,
 * key `sk_test_sandbox`) answers `/sandbox` with its control surface. Node
 * only: Vite runs it while reading its config, and no page imports it, so it
 * never reaches a browser bundle; the secret key stays in the Vite process.
 * Vite's types only are imported, so this module loads no `vite`.
 */
import type { Plugin, PreviewServer, ViteDevServer } from 'vite';
import { createViteCheckout, type ViteCheckout } from './vite-checkout.js';
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
  // Servers in middleware mode have no HTTP server of their own to tell us they closed.
  const withoutHttpServer = new Set<ViteCheckout>();
  const closeThoseWithoutHttpServer = async (): Promise<void> => {
    const closing = [...withoutHttpServer].map((checkout) => checkout.close());
    withoutHttpServer.clear();
    await Promise.all(closing);
  };
  const mount = (server: ViteDevServer | PreviewServer): void => {
    const checkout = mountCheckout(server, resolved);
    if (!server.httpServer) withoutHttpServer.add(checkout);
  };
  return {
    name: 'pay-checkout',
    // Used directly, not returned: these middlewares run before Vite's own, so no SPA fallback answers a POST.
    configureServer: mount,
    configurePreviewServer: mount,
    closeServer: closeThoseWithoutHttpServer,
    closePreviewServer: closeThoseWithoutHttpServer,
  };
}

export default payCheckout;

function mountCheckout(server: ViteDevServer | PreviewServer, options: ResolvedViteOptions): ViteCheckout {
  const logger = server.config.logger;
  const checkout = createViteCheckout(options, logger);
  server.middlewares.use(checkout.middleware);
  // One close per server, restarts included: Vite closes the old HTTP server when it restarts.
  server.httpServer?.once('close', () => {
    checkout.close().catch((error: unknown) => {
      logger.warn(`  pay-checkout: the relay did not close cleanly: ${(error as Error)?.message ?? error}`);
    });
  });
  const printUrls = server.printUrls.bind(server);
  server.printUrls = () => {
    printUrls();
    for (const line of checkout.startupLines(originOf(server.resolvedUrls))) logger.info(line);
  };
  return checkout;
}

/** The server's first local origin (`http://localhost:5173`); the checkout's paths sit at the root, whatever `base` is. */
function originOf(urls: ViteDevServer['resolvedUrls']): string | undefined {
  const local = urls?.local[0] ?? urls?.network[0];
  return local === undefined ? undefined : new URL(local).origin;
}
