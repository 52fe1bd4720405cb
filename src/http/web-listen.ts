/**
 * `listen` as the web entries export it: the same type as the Node one
 * (node/listen.ts), rejecting with what to use instead, since `node:http`
 * is what it serves on.
 */
import { needsNode } from './needs-node.js';
import type { listen } from './node/listen.js';

/** The web entry's `listen` for the entry imported as `specifier`. */
export function webListen(specifier: string): typeof listen {
  return async () => {
    throw needsNode(
      'listen()',
      specifier,
      "Serve the handler with the runtime's own server: export default { fetch: handler } " +
        '(Workers, Bun), Deno.serve(handler).',
    );
  };
}
