// Page side of the Chromium peer benches (served at /page/ by bench/lib/chromium_page.mjs's server; the harnesses'
// page functions `await import('/page/peer_page.mjs')`): what every page reports the same way.

/** An error as the results record it: `Name: message`. */
export const errorText = (e) => `${e?.name ?? 'Error'}: ${e?.message ?? String(e)}`;

/** The browser's facts every result records: { ua, cores, crossOriginIsolated } (pageMeta reads them on the Node side). */
export const browserFacts = () => ({ ua: navigator.userAgent, cores: navigator.hardwareConcurrency, crossOriginIsolated });
