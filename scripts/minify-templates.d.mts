/** Types of scripts/minify-templates.mjs, for vite.embed.config.ts. */

/** The code with the indentation inside its `html` templates removed, and per line how many characters went. */
export declare function stripTemplateIndentation(code: string): {
  code: string;
  removed: Map<number, number>;
};

/** A source map's `mappings` with each line's columns moved left by what left the line's start. */
export declare function shiftMappings(mappings: string, removed: Map<number, number>): string;

/** A line-by-line source map of the stripped code back to the code before it. */
export declare function strippingSourceMap(
  code: string,
  removed: Map<number, number>,
): { version: 3; sources: string[]; names: string[]; mappings: string };
