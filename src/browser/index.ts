/** What other features may use of browser (docs/architecture.md): nothing else of it is imported from outside. */
export { BrowserModule } from './browser.module.js';
export { MAX_BROWSER_WIDGETS } from './http/browser.controller.js';
