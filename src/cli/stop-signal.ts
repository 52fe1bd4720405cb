/**
 * The signal a long-running command (`sandbox`, `serve`) stops on: Ctrl-C in
 * a terminal, SIGTERM from a supervisor or a container's stop.
 */

/** Resolves on the first SIGINT or SIGTERM. */
export function stopSignal(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}
