/**
 * Whether the relay runs on Node itself, where its keep-alive `node:http`
 * transport beats the global fetch. Bun, Deno and Cloudflare's workerd answer
 * to `process.versions.node` too, for compatibility, but their `node:http` is
 * a layer over their own fetch: there the global fetch is the one to use.
 */

/** The globals read; a parameter so tests can show other runtimes. */
export interface RuntimeGlobals {
  process?: { versions?: Record<string, string | undefined> };
  navigator?: { userAgent?: string };
}

/** True on Node, false on Bun, Deno, workerd, browsers and other edge runtimes. */
export function isNodeRuntime(runtime: RuntimeGlobals = globalThis as RuntimeGlobals): boolean {
  const versions = runtime.process?.versions;
  if (typeof versions?.node !== 'string' || versions.bun !== undefined || versions.deno !== undefined) {
    return false;
  }
  // Node has no navigator before 21, then says `Node.js/21`; workerd says `Cloudflare-Workers`.
  const userAgent = runtime.navigator?.userAgent;
  return userAgent === undefined || userAgent.startsWith('Node.js/');
}
