/** Types of scripts/minify-css.mjs, for vite.embed.config.ts. */

/** CSS text without the comments and whitespace CSS ignores. */
export declare function minifyCss(text: string): string;

/** A styles module with its stylesheets minified, or null when the module does not end with its stylesheet. */
export declare function minifyStylesModule(code: string): string | null;
