/**
 * The Node side of the HTTP layer, and the only code that knows Node: the
 * `node:http` listener with its lazy request, and undici's transport.
 */
export { type ListenOptions, listen, type RunningServer } from './listen.js';
export { type NodeListener, type NodeListenerOptions, toNodeListener } from './node-listener.js';
export { createUndiciTransport, type UndiciTransportOptions } from './undici-transport.js';
