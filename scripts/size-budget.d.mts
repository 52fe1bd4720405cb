/** The embed bundle's gzip budget in bytes; the build fails above it. */
export declare const EMBED_BUDGET_GZIP_BYTES: number;
