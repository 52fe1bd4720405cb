/** Types of scripts/chromium.mjs, for the TypeScript tests and scripts that launch Chromium. */

/** Flags for a headless Chromium on a machine with a closed network and no GPU. */
export declare const CHROMIUM_ARGS: string[];

/** The path of a Chromium to drive, installing one when it can; throws with what to run when it cannot. */
export declare function findChromium(): string;
