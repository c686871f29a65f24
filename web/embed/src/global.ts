/**
 * The script build: `<script async src=".../js/v1/referral.js" data-publishable-key="pk_…">`.
 * It sets `window.referral`, runs the calls the page queued before it loaded
 * (`referral('customer', {...})`, `referral('trackPurchase', {...})`, `referral('ready', fn)`), and
 * renders every `[data-referral-widget]` element once the document is parsed.
 */
import { createReferral, type Referral } from './referral';

type Command = [name: string, ...args: unknown[]];
type Queued = ((...args: Command) => unknown) & { q?: ArrayLike<Command> };
type Global = ((...args: Command) => Promise<unknown>) & Referral;

declare global {
  interface Window {
    referral?: Queued | Global;
  }
}

const script = document.currentScript as HTMLScriptElement | null;
const settings = script?.dataset ?? {};
const queued = Array.from((window.referral as Queued | undefined)?.q ?? []);

function start(): void {
  const src = script?.src ?? '';
  // The service's base: the script is served at <base>/js/v1/referral.js.
  const apiBase = settings.apiBase ?? new URL('../../', src || location.href).href;
  const client = createReferral({ publishableKey: settings.publishableKey ?? '', apiBase, currency: settings.currency, cookieDomain: settings.cookieDomain });
  const run = (name: string, ...args: unknown[]): Promise<unknown> => {
    switch (name) {
      case 'customer': {
        const { token, refresh } = (args[0] ?? {}) as { token?: string; refresh?: () => Promise<string> };
        client.customer(token, refresh);
        return Promise.resolve();
      }
      case 'render':
        return client.render(args[0] as Element | string, args[1] as object);
      case 'trackPurchase':
        return client.trackPurchase(args[0] as { purchase_token: string });
      case 'ready':
        return client.ready.then(() => (args[0] as (referral: Referral) => unknown)(client));
      default:
        return Promise.reject(new Error(`referral: unknown command ${name}`));
    }
  };
  const global = Object.assign((...command: Command) => run(...command), client) as Global;
  window.referral = global;
  for (const [name, ...args] of queued) run(name, ...args).catch((error: unknown) => console.error('referral:', error));
  if (settings.autoRender !== 'false') {
    const renderAll = () => void client.renderAll();
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', renderAll, { once: true });
    else renderAll();
  }
}

try {
  start();
} catch (error) {
  console.error(error);
}
