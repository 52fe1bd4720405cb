/** Types of scripts/minify-templates.mjs, for vite.embed.config.ts. */

/** Where one input line's first kept character is in the stripped output, and how much left its start. */
export interface MovedLine {
  line: number;
  column: number;
  removed: number;
}

/** The code with its templates' invisible whitespace removed, and per input line where its text now is. */
export declare function stripTemplateIndentation(code: string): {
  code: string;
  lines: MovedLine[];
};

/** A source map's `mappings` with each generated position moved to where its text now is. */
export declare function shiftMappings(mappings: string, lines: MovedLine[]): string;

/** A line-by-line source map of the stripped code back to the code before it. */
export declare function strippingSourceMap(lines: MovedLine[]): {
  version: 3;
  sources: string[];
  names: string[];
  mappings: string;
};
