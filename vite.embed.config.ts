/**
 * Builds the one-file embed: `dist/pay-checkout.embed.js`, the element with
 * Lit bundled, for a single `<script>` tag. The unbundled ES
 * modules for npm come from `tsc -p tsconfig.build.json`.
 */
import { defineConfig, type Plugin } from 'vite';
import { minifyStylesModule } from './scripts/minify-css.mjs';
import { strippingSourceMap, stripTemplateIndentation } from './scripts/minify-templates.mjs';

/**
 * Minifies the stylesheets of the element's `*.styles.ts` modules, as the
 * build does for the npm modules (scripts/minify-css.mjs). Only a module that
 * ends with its template is touched, so the source map stays exact (`map: null`).
 */
function minifyElementStyles(): Plugin {
  return {
    name: 'pay-checkout:minify-element-styles',
    transform: {
      filter: { id: /\/src\/element\/[^/]+\.styles\.ts$/ },
      handler(code) {
        const minified = minifyStylesModule(code);
        return minified === null ? null : { code: minified, map: null };
      },
    },
  };
}

/**
 * Strips the indentation of the element's `html` templates in its
 * `*.templates.ts` modules, and the line breaks between their tags, as the
 * build does for the npm modules (scripts/minify-templates.mjs); the map
 * says where each line's text now starts.
 */
function minifyElementTemplates(): Plugin {
  return {
    name: 'pay-checkout:minify-element-templates',
    transform: {
      filter: { id: /\/src\/element\/[^/]+\.templates\.ts$/ },
      handler(code, id) {
        const stripped = stripTemplateIndentation(code);
        return {
          code: stripped.code,
          map: { ...strippingSourceMap(stripped.lines), sources: [id] },
        };
      },
    },
  };
}

/**
 * Drops what of Lit this bundle can never use: the global hooks of
 * `@lit/polyfill-support`, for browsers without native Shadow DOM (none of
 * them runs an ES2022 bundle); the version registries that Lit's development
 * build reads to warn of two copies of Lit on a page (the embed always
 * brings its own); and the message of the error a `CSSResult` built without
 * Lit's private token throws (only Lit builds one here, with the token).
 * Each is replaced by `void 0` padded to its length, so no code moves and
 * the source map stays exact (`map: null`). 154 B gzip in all.
 *
 * Then, whole statements and members, blanked to spaces the same way (or
 * replaced by what stays of them): what only decorators use
 * (`addInitializer` and its initializers, the decorator metadata registry,
 * properties over accessors of their own), server-side rendering's hydration
 * hook, the array form of `static styles` (the element gives one stylesheet),
 * and what lit-html does for element bindings, directives and SVG or MathML
 * templates, none of which the element's templates use. About 450 B gzip. Then
 * attributes built from several values (the templates build such a value
 * in JavaScript: ``class=${`status state-${status}`}``), bindings inside
 * raw-text elements and comments, templates compiled ahead of time, what
 * parts are told as the element comes and goes (only async directives
 * listen), and the property options the element never sets (`useDefault`,
 * `hasChanged`, `noAccessor`, `state`, object converters): about 500 B more. Then
 * the render options the element never gives (`creationScope`, `renderBefore`),
 * the ShadyCSS polyfill's switch and what stays of the parts above once they
 * are gone (accessor look-ups, directive resolution, a part's parent, the
 * defaults of blanked options, the default `render()`): 270 B more. Each is matched
 * exactly in Lit's production build: a Lit upgrade that changes one fails the
 * build here rather than ship a broken element.
 */
function dropUnusedLitParts(): Plugin {
  const unused = [
    /\b\w+\.(?:reactiveElement|litHtml|litElement)PolyfillSupport\b/g,
    /\(\w+\.(?:reactiveElement|litHtml|litElement)Versions\s*\?\?=\s*\[\]\)\.push\([^)]*\)/g,
    /"CSSResult is not constructable[^"]*"/g,
  ];
  const blanked: Record<string, (string | [string, string])[]> = {
    'reactive-element.js': [
      'static addInitializer(t){this._$Ei(),(this.l??=[]).push(t)}',
      ',this.constructor.l?.forEach(t=>t(this))',
      ',void 0!==t.l&&(this.l=[...t.l])',
      'Symbol.metadata??=Symbol("metadata"),a.litPropertyMetadata??=new WeakMap;',
      'const t=this[Symbol.metadata];if(null!==t){const s=litPropertyMetadata.get(t);if(void 0!==s)for(const[t,i]of s)this.elementProperties.set(t,i)}',
      'if(Array.isArray(s)){const e=new Set(s.flat(1/0).reverse());for(const s of e)i.unshift(t(s))}else ',
      // Controllers are never removed; no property is an object or an array read from or written to an attribute.
      'removeController(t){this._$EO?.delete(t)}',
      'case Object:case Array:t=null==t?t:JSON.stringify(t)',
      'case Object:case Array:try{i=JSON.parse(t)}catch(t){i=null}',
      // A property over an accessor the class defines itself ("wrapped"): the element declares none.
      'this.prototype.hasOwnProperty(t)&&((s=Object.create(s)).wrapped=!0),',
      // So each property's accessor reads and writes its own storage, with nothing to look up or call through.
      [
        'const{get:e,set:r}=h(this.prototype,t)??{get(){return this[s]},set(t){this[s]=t}};return{get:e,set(s){const h=e?.call(this);r?.call(this,s),this.requestUpdate(t,h,i)}',
        'return{get(){return this[s]},set(r){const h=this[s];this[s]=r,this.requestUpdate(t,h,i)}',
      ],
      'const t=this.constructor.elementProperties;if(t.size>0)for(const[s,i]of t){const{wrapped:t}=i,e=this[s];!0!==t||this._$AL.has(s)||void 0===e||this.C(s,void 0,i,e)}',
      // A property's default kept apart from its attribute (`useDefault`): the element declares none.
      '||i.useDefault&&i.reflect&&h===this._$Ej?.get(t)&&!this.hasAttribute(r._$Eu(t,i))',
      'i&&!(this._$Ej??=new Map).has(t)&&(this._$Ej.set(t,r??s??this[t]),!0!==h||void 0!==r)||',
      '??this._$Ej?.get(e)??r',
      // Internal reactive state (`state: true`), `hasChanged`, `noAccessor`, converters given as objects, symbols
      // as property names: the element's properties are all public, named by strings, compared with `!==`, and
      // its one converter (`cart-json`) is a function.
      's.state&&(s.attribute=!1),',
      // The defaults of the two options blanked above, and the renaming hint for Google's Closure Compiler.
      ',useDefault:!1,hasChanged:f',
      ['d("elementProperties")', '"elementProperties"'],
      ['d("elementProperties")', '"elementProperties"'],
      ['d("finalized")', '"finalized"'],
      ['d("finalized")', '"finalized"'],
      ['d("properties")', '"properties"'],
      // Lit lists the symbol-named properties and looks up accessors only for what the lines above blank.
      ['s=[...r(t),...o(t)]', 's=r(t)'],
      'getOwnPropertySymbols:o,',
      'getOwnPropertyDescriptor:h,',
      // Converting a `CSSStyleSheet` to adopt, which the css-tag.js entries below make the identity.
      ['void 0!==s&&i.push(t(s));return i', 'void 0!==s&&i.push(s);return i'],
      // What stays of `useDefault` and `wrapped` once their code above is blanked.
      ['C(t,s,{useDefault:i,reflect:e,wrapped:h},r)', 'C(t,s,{reflect:e})'],
      ['this.hasUpdated||i||(s=void 0)', 'this.hasUpdated||(s=void 0)'],
      ['!s.noAccessor', '1'],
      // The descriptor is always one now (the accessor look-up is blanked above).
      ['void 0!==h&&e(this.prototype,t,h)', 'e(this.prototype,t,h)'],
      ['(void 0!==i.converter?.toAttribute?i.converter:u)', 'u'],
      [
        '"function"==typeof t.converter?{fromAttribute:t.converter}:void 0!==t.converter?.fromAttribute?t.converter:u',
        't.converter?{fromAttribute:t.converter}:u',
      ],
      ['(i.hasChanged??f)(h,s)', 'f(h,s)'],
      ['"string"==typeof t?t.toLowerCase():void 0', 't.toLowerCase()'],
    ],
    // Also what server-rendered content (render before it) and async directives (whether connected) need.
    'lit-element.js': [
      ',s.litElementHydrateSupport?.({LitElement:i})',
      'createRenderRoot(){const t=super.createRenderRoot();return this.renderOptions.renderBefore??=t.firstChild,t}',
      // The rendered part is kept only to tell it of `setConnected` (blanked below).
      ',this._$Do=void 0',
      // The default `render()`: the element has its own.
      'render(){return r}',
      ['this._$Do=e(r,this.renderRoot,this.renderOptions)', 'e(r,this.renderRoot,this.renderOptions)'],
      'this.hasUpdated||(this.renderOptions.isConnected=this.isConnected),',
      // Telling the rendered parts the element came or went: only async directives listen (`setConnected` is blanked below).
      'connectedCallback(){super.connectedCallback(),this._$Do?.setConnected(!0)}disconnectedCallback(){super.disconnectedCallback(),this._$Do?.setConnected(!1)}',
    ],
    // The cache of stylesheets by `css` template (the element's one comes from `unsafeCSS`), and
    // the conversion of a `CSSStyleSheet` given as `static styles` (the element gives none).
    'css-tag.js': [
      'const s=this.t;',
      // What only that cache read: the `css` template's strings.
      ['this.cssText=t,this.t=e}', 'this.cssText=t}'],
      // The ShadyCSS polyfill, for browsers without Shadow DOM, whose Lit support is dropped above: with native
      // Shadow DOM the stylesheet is adopted as on any page. What is adopted is always the element's `CSSResult`.
      ['(void 0===t.ShadyCSS||t.ShadyCSS.nativeShadow)&&', ''],
      ['o.map(t=>t instanceof CSSStyleSheet?t:t.styleSheet)', 'o.map(t=>t.styleSheet)'],
      // A stylesheet as text: Lit adopts it, and the element never prints it.
      'toString(){return this.cssText}',
      [
        'const e=void 0!==s&&1===s.length;e&&(t=o.get(s)),void 0===t&&((this.o=t=new CSSStyleSheet).replaceSync(this.cssText),e&&o.set(s,t))',
        '(this.o=t=new CSSStyleSheet).replaceSync(this.cssText)',
      ],
      [
        'c=e?t=>t:t=>t instanceof CSSStyleSheet?(t=>{let e="";for(const s of t.cssRules)e+=s.cssText;return r(e)})(t):t',
        'c=t=>t',
      ],
    ],
    // Element bindings (`<div ${ref}>`), directives and SVG or MathML templates: the element's templates have none.
    'lit-html.js': [
      // Render options the element never gives (`creationScope`, `renderBefore`): it renders with `{ host }`.
      ['(t?.creationScope??l).importNode', 'l.importNode'],
      ['const e=s?.renderBefore??i;', 'const e=i;'],
      ['const t=s?.renderBefore??null;', 'const t=null;'],
      // The element always gives its render options.
      ['t,void 0,s??{})', 't,void 0,s)'],
      // Resolving a value's directive, which returns the value itself once directives are blanked below.
      ['t=M(this,t,i),a(t)', 'a(t)'],
      ['(t=M(this,t,i,0)??A)===E', '(t??=A)===E'],
      ['6===r.type&&(i=new Z(h,this,t))', '0'],
      'else t.startsWith(o)&&(d.push({type:6,index:l}),r.removeAttribute(t))',
      [
        'let h=void 0!==e?s._$Co?.[e]:s._$Cl;const o=a(i)?void 0:i._$litDirective$;return h?.constructor!==o&&(h?._$AO?.(!1),void 0===o?h=void 0:(h=new o(t),h._$AT(t,s,e)),void 0!==e?(s._$Co??=[])[e]=h:s._$Cl=h),void 0!==h&&(i=M(t,h._$AS(t,i.values),h,e)),i',
        'return i',
      ],
      ['l=2===i?"<svg>":3===i?"<math>":""', 'l=""'],
      ['(2===i?"</svg>":3===i?"</math>":"")', '""'],
      ['2===i||3===i){const t=this.el.content.firstChild;t.replaceWith(...t.childNodes)}', '0){}'],
      // What only directives read of a part: its parent node, its ends, its element's tag name.
      'get parentNode(){let t=this._$AA.parentNode;const i=this._$AM;return void 0!==i&&11===t?.nodeType&&(t=i.parentNode),t}',
      'get startNode(){return this._$AA}get endNode(){return this._$AB}',
      'get parentNode(){return this._$AM.parentNode}',
      'get tagName(){return this.element.tagName}',
      // Whether a part is connected, which only async directives ask.
      ['this._$AP?.(!1,!0,s);', ';'],
      'setConnected(t){void 0===this._$AM&&(this._$Cv=t,this._$AP?.(t))}',
      // A part's parent and its disconnectable children, which only directives and the getters above read.
      ['this._$AV=[],this._$AN=void 0,this._$AD=t,this._$AM=i', 'this._$AV=[],this._$AD=t'],
      [
        'this.type=2,this._$AH=A,this._$AN=void 0,this._$AA=t,this._$AB=i,this._$AM=s,',
        'this.type=2,this._$AH=A,this._$AA=t,this._$AB=i,',
      ],
      [
        'this.type=1,this._$AH=A,this._$AN=void 0,this.element=t,this.name=i,this._$AM=e,',
        'this.type=1,this._$AH=A,this.element=t,this.name=i,',
      ],
      'get _$AU(){return this._$AM._$AU}',
      'get _$AU(){return this._$AM._$AU}',
      'get _$AU(){return this._$AM._$AU}',
      'get _$AU(){return this._$AM?._$AU??this._$Cv}',
      ',this._$Cv=e?.isConnected??!0',
      // Attributes built from several values (`class="a ${b}"`): the templates give each attribute one whole value.
      [
        's.length>2||""!==s[0]||""!==s[1]?(this._$AH=Array(s.length-1).fill(new String),this.strings=s):this._$AH=A',
        // Set already at the start of the constructor.
        '0',
      ],
      [
        'const h=this.strings;let o=!1;if(void 0===h)t=M(this,t,i,0),o=!a(t)||t!==this._$AH&&t!==E,o&&(this._$AH=t);else{const e=t;let n,r;for(t=h[0],n=0;n<h.length-1;n++)r=M(this,e[s+n],i,n),r===E&&(r=this._$AH[n]),o||=!a(r)||r!==this._$AH[n],r===A?t=A:t!==A&&(t+=(r??"")+h[n+1]),this._$AH[n]=r}',
        '(!a(t)||t!==this._$AH&&t!==E)&&(this._$AH=t,this.j(t));',
      ],
      // What stays of the above: one value, set at once (`noCommit` was for attributes of several values).
      ['_$AI(t,i=this,s,e){', '_$AI(t){'],
      ['o&&!e&&this.j(t)}', '}'],
      ['void 0!==s.strings?(s._$AI(t,s,i),i+=s.strings.length-2):s._$AI(t[i])', 's._$AI(t[i])'],
      // The directive's parent, which only the directive resolution blanked above read.
      ['_$AI(t,i=this){if(', '_$AI(t){if('],
      ['_$AI(t,i=this){a(t)', '_$AI(t){a(t)'],
      // The event part's constructor, written as its siblings' are: it names its arguments for nothing.
      [
        'constructor(t,i,s,e,h){super(t,i,s,e,h),this.type=5}',
        'constructor(){super(...arguments),this.type=5}',
      ],
      // Bindings inside raw text elements (`<textarea>`, `<title>`, `<style>`, `<script>`) and inside comments: none in the templates.
      'y.test(u[2])&&(n=RegExp("</"+u[2],"g")),',
      // The end of a raw text element, which the line above no longer sets.
      ['(c=n??v,d=-1)', '(c=v,d=-1)'],
      ['c===_||c===m?c=v:(c=p,n=void 0)', 'c===_||c===m?c=v:0'],
      'if(y.test(r.tagName)){const t=r.textContent.split(o),i=t.length-1;if(i>0){r.textContent=s?s.emptyScript:"";for(let s=0;s<i;s++)r.append(t[s],c()),P.nextNode(),d.push({type:2,index:++l});r.append(t[i],c())}}',
      'else{let t=-1;for(;-1!==(t=r.data.indexOf(o,t+1));)d.push({type:7,index:l}),t+=o.length-1}',
      // Templates compiled ahead of time (`_$litType$` an object): the element's are all `html` tagged.
      [
        '"number"==typeof s?this._$AC(t):(void 0===s.el&&(s.el=S.createElement(V(s.h,s.h[0]),this.options)),s)',
        'this._$AC(t)',
      ],
      // The message of the error a template strings array that is not one throws (the check stays).
      ['"invalid template strings array"', '""'],
      // DOM nodes as values, and listeners given as objects with options: the templates give neither.
      'void 0!==t.nodeType?this.T(t):',
      ['e=t===A&&s!==A||t.capture!==s.capture||t.once!==s.once||t.passive!==s.passive', 'e=t===A&&s!==A'],
      [
        '"function"==typeof this._$AH?this._$AH.call(this.options?.host??this.element,t):this._$AH.handleEvent(t)',
        // The host is always given: the element renders with `{ host: this }`.
        'this._$AH.call(this.options.host,t)',
      ],
    ],
  };
  return {
    name: 'pay-checkout:drop-unused-lit-parts',
    transform: {
      filter: { id: /\/node_modules\/(?:lit-html|lit-element|@lit\/reactive-element)\/[^/]+\.js$/ },
      handler(code, id) {
        let dropped = unused.reduce(
          (text, part) => text.replace(part, (found) => 'void 0'.padEnd(found.length)),
          code,
        );
        for (const entry of blanked[id.slice(id.lastIndexOf('/') + 1)] ?? []) {
          // `[part, kept]`: what is left in its place, padded.
          const [part, kept] = typeof entry === 'string' ? [entry, ''] : entry;
          if (!dropped.includes(part)) throw new Error(`Lit changed: ${part} is not in ${id}`);
          dropped = dropped.replace(part, kept.padEnd(part.length));
        }
        return dropped === code ? null : { code: dropped, map: null };
      },
    },
  };
}

export default defineConfig({
  plugins: [minifyElementStyles(), minifyElementTemplates(), dropUnusedLitParts()],
  build: {
    outDir: 'dist',
    emptyOutDir: false,
    target: 'es2022',
    // The map is written beside the bundle, but the bundle does not name it: the line would cost every page 40 B.
    sourcemap: 'hidden',
    rolldownOptions: {
      output: {
        minify: {
          // Texts outside templates spelled in ASCII (`\u00e9` for `é`): the same strings, 34 B less gzip,
          // as gzip codes escapes better than the rare bytes of UTF-8.
          codegen: { asciiOnly: true },
          // Lit's internal members (`_$AH`, `_$EO`…) renamed shorter: the bundle holds every part of Lit that
          // reads or writes them. The markers another copy of Lit may read on a value or a node keep their
          // names (`_$litType$`, `_$litPart$`, `_$litElement$`, `_$cssResult$`, `_$litDirective$`).
          mangleProps: { include: /^_\$/, exclude: /^_\$(?:lit|cssResult)/ },
        },
      },
    },
    lib: {
      entry: 'src/embed.ts',
      name: 'PayCheckout',
      formats: ['iife'],
      fileName: () => 'pay-checkout.embed.js',
    },
  },
});
