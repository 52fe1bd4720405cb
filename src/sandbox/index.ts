/**
 * `pay-checkout/sandbox`: the payments service in test mode, offline
 * (contract §4). `createSandbox` gives a web-standard handler for any runtime;
 * `startSandbox` serves it on Node.
 */

export { listen, type RunningServer } from '../http/node/listen.js';
export { type NodeListener, type NodeListenerOptions, toNodeListener } from '../http/node/node-listener.js';
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
  SANDBOX_CONTROL_PATH,
  type Sandbox,
  type SandboxKeys,
  type SandboxOptions,
} from './sandbox.js';
export { SandboxControlError } from './sandbox-control-error.js';
export { type RunningSandbox, type StartSandboxOptions, startSandbox } from './start-sandbox.js';
export { SANDBOX_TEST_NUMBERS } from './test-numbers.js';
