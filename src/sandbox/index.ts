/**
 * `pay-checkout/sandbox` on Node (the `node` condition of the package's
 * exports, which Bun and Deno read too): the payments service in test mode,
 * offline. `createSandbox` gives a web-standard handler for any
 * runtime; `startSandbox` serves it on `node:http`. Web runtimes get web.ts,
 * the same names without `node:` imports. This module's declarations are the
 * package's one set of types for `pay-checkout/sandbox`.
 */

export { listen, type RunningServer } from '../http/node/listen.js';
export { type RunningSandbox, type StartSandboxOptions, startSandbox } from './start-sandbox.js';
export * from './web.js';
