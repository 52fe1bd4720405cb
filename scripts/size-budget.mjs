/**
 * The embed's gzip budget, shared by the build's size gate and the size
 * benchmark. 17.5 KiB: the 16 KiB of the first element, plus what the
 * DOM-free session, the form controller and the template module cost as
 * separate pieces (about 660 B after two rounds of trimming), plus what
 * telling the shopper why (the shop's cart message, the payer's decline or
 * empty wallet, in English and French) and the `cart-json` attribute cost
 * (about 360 B; bench/results/size.json). The build fails above it, so any
 * further growth is a decision, not a drift.
 */
export const EMBED_BUDGET_GZIP_BYTES = 17.5 * 1024;
