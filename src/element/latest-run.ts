/**
 * One async run at a time, the way Lit's `Task` runs them: each run has its
 * own `AbortController`, a new run aborts the one before, and only the
 * latest run delivers its outcome.
 */

/** The runs of one kind of work (the create, for a checkout). */
export class LatestRun {
  #controller: AbortController | undefined;

  /** True while a run is in flight. */
  get running(): boolean {
    return this.#controller !== undefined;
  }

  /** Aborts the run in flight, which then delivers nothing. */
  abort(): void {
    this.#controller?.abort();
    this.#controller = undefined;
  }

  /**
   * Runs `work` with a signal of its own, aborting the run before; `deliver`
   * gets the result, or the error it threw, unless a later run or `abort()` came first.
   */
  async run<T>(
    work: (signal: AbortSignal) => Promise<T>,
    deliver: (result: T | undefined, error?: unknown) => void,
  ): Promise<void> {
    this.abort();
    const controller = new AbortController();
    this.#controller = controller;
    let result: T | undefined;
    let failure: unknown;
    try {
      result = await work(controller.signal);
    } catch (error) {
      failure = error;
    }
    if (this.#controller !== controller) return;
    this.#controller = undefined;
    deliver(result, failure);
  }
}
