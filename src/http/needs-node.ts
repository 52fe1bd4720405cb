/**
 * The error of a Node-only function called through a web entry. The
 * package's web entries (the `default` export condition, which edge bundlers
 * take) hold no `node:` import, so that a bundle for a web runtime resolves
 * every module; the few functions that need `node:http` or `node:fs` stay in
 * them under the same name and type, and reject with this error, so a
 * merchant's code and types are the same whichever entry a runtime resolves.
 */

/** `call` needs Node; `specifier` is the import that resolved to its web entry; `instead` says what works here. */
export function needsNode(call: string, specifier: string, instead: string): Error {
  return new Error(
    `${call} needs Node, and ${specifier} resolved to its web entry here (the "default" export ` +
      'condition, for web runtimes: no node: module). Node, Bun and Deno get the Node entry through ' +
      'the "node" condition; a bundle meant for Node must keep it (esbuild --platform=node does). ' +
      instead,
  );
}
