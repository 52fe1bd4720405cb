/**
 * `pay-checkout/sandbox` on web runtimes (the `default` export condition,
 * which edge bundlers take): everything of the Node entry (index.ts) but
 * `startSandbox` and `listen`, which serve on `node:http`. Those two keep
 * their names and types here and reject with what to use instead, so a
 * merchant's code type-checks the same on every runtime, and no module of
 * this entry's graph imports a `node:` module: it bundles with nothing
 * external.
 */
import { needsNode } from '../http/needs-node.js';
import { webListen } from '../http/web-listen.js';
import type { startSandbox as nodeStartSandbox } from './start-sandbox.js';

export type { RunningServer } from '../http/node/listen.js';
export { type NodeListener, type NodeListenerOptions, toNodeListener } from '../http/node/node-listener.js';
export type { Clock } from '../shared/clock.js';
export {
  type ApiKeyInput,
  type ApplicationContext,
  type ApplicationRecord,
  PERMISSIONS,
  type Permission,
  SANDBOX_APPLICATION,
  SANDBOX_KEYS,
  type Session,
} from './authentication.js';
export type {
  ChimeJson,
  OrderJson,
  OrderPageItemJson,
  OrderStatusJson,
  OtpJson,
  PaymentJson,
  PaymentPromptJson,
} from './order-views.js';
export {
  createSandbox,
  type DeclineReason,
  type ReceivedRequest,
  SANDBOX_CONTROL_PATH,
  SANDBOX_REQUESTS_PATH,
  type Sandbox,
  type SandboxKeys,
  type SandboxOptions,
} from './sandbox.js';
export { SandboxControlError } from './sandbox-control-error.js';
export type { RunningSandbox, StartSandboxOptions } from './start-sandbox.js';
export { SANDBOX_TEST_NUMBERS } from './test-numbers.js';

/** Serves a sandbox on `node:http`: Node only (see index.ts); here it rejects. */
export const startSandbox: typeof nodeStartSandbox = async () => {
  throw needsNode(
    'startSandbox()',
    'pay-checkout/sandbox',
    "Serve createSandbox().handle with the runtime's own server: export default { fetch: sandbox.handle } " +
      '(Workers, Bun), Deno.serve(sandbox.handle).',
  );
};

/** Serves a Node listener on a port: Node only (see index.ts); here it rejects. */
export const listen = webListen('pay-checkout/sandbox');
