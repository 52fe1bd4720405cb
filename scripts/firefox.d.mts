/** Types of scripts/firefox.mjs, for the TypeScript tests that launch Firefox. */

/** The path of a Firefox to drive; throws with what to run when there is none. */
export declare function findFirefox(): string;
