/** The library's core: one client per page, made by the script tag (global.ts) or by `createReferral` (esm.ts). */
import { Api, ReferralError, type TokenRefresher } from './api';
import { attributionCookie, DEFAULT_DAYS, landingCode, readAttribution, type Attribution } from './attribution';
import { TEXTS, type Texts } from './texts';
import { mount, type BrowserWidget, type Mounted, type WidgetContext } from './widgets';

export { ReferralError } from './api';
export type { Attribution } from './attribution';
export type { BrowserWidget, Mounted } from './widgets';

export interface ReferralOptions {
  /** The merchant's publishable key (pk_…): the only credential a page holds. */
  publishableKey: string;
  /** The service's address, e.g. `https://referrals.example` (or `…/sandbox`). */
  apiBase: string;
  /** A customer token the merchant's server minted for the signed-in customer (POST /v2/tokens/customer). */
  customerToken?: string;
  /** Called for a new customer token when there is none or it expired (they last 10 minutes). */
  refreshCustomerToken?: TokenRefresher;
  /** Currency of cash rewards in the widgets' text (ISO 4217). Default USD. */
  currency?: string;
  /** Words the widgets show, to translate or reword them. */
  text?: Partial<Texts>;
  /** Domain of the attribution cookie, to share it across subdomains (e.g. `shop.example`); default the page's host. */
  cookieDomain?: string;
}

/** Which widget to render: by id (its group's variant for this visitor), or the first offered one with an objective. */
export interface RenderOptions {
  widget?: number;
  objective?: 'referral' | 'email_capture';
}

export type TrackedPurchase =
  | { status: 'recorded'; purchase: { id: number; order_id: string; referral_code: string | null; conversion_id: number | null } }
  | { status: 'already_recorded' };

export interface Referral {
  /** Settles once a referral code in the landing URL has been checked and kept. */
  readonly ready: Promise<void>;
  /** The code this visitor arrived with (last link followed wins), while it counts; no personal data. */
  attribution(): Attribution | null;
  /** Sets the signed-in customer (widgets already shown are drawn again for them). */
  customer(token: string | undefined, refresh?: TokenRefresher): void;
  render(target: Element | string, options?: RenderOptions): Promise<Mounted | null>;
  /** Renders every element with a `data-referral-widget` attribute (`referral`, `email_capture` or a widget id). */
  renderAll(root?: ParentNode): Promise<(Mounted | null)[]>;
  /** Reports an order with the purchase token the merchant's server signed; it earns only what that token says. */
  trackPurchase(order: { purchase_token: string }): Promise<TrackedPurchase>;
  /** This browser's visitor id: random, kept in localStorage, used to serve the same variant again. */
  visitor(): string;
}

const VISITOR_KEY = 'referral_visitor';

function visitorId(): string {
  const make = () =>
    crypto.randomUUID ? crypto.randomUUID() : Array.from(crypto.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('');
  try {
    let id = localStorage.getItem(VISITOR_KEY);
    if (!id || !/^[A-Za-z0-9._:-]{1,128}$/.test(id)) {
      id = make();
      localStorage.setItem(VISITOR_KEY, id);
    }
    return id;
  } catch {
    return make(); // storage blocked: a variant per page view
  }
}

/** The claims of a JWT, read without verifying (the service verifies); undefined when it is not one. */
function claims(token: string): Record<string, unknown> | undefined {
  try {
    const part = token.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
    return JSON.parse(atob(part + '='.repeat((4 - (part.length % 4)) % 4))) as Record<string, unknown>;
  } catch {
    return undefined;
  }
}

export function createReferral(options: ReferralOptions): Referral {
  if (!/^pk_/.test(options.publishableKey ?? '')) throw new Error('referral: a publishable key (pk_…) is required; never put a secret key or token in a page');
  const api = new Api(options.apiBase.replace(/\/+$/, ''), options.publishableKey);
  api.setCustomer(options.customerToken, options.refreshCustomerToken);
  const texts: Texts = { ...TEXTS, ...options.text };
  const mounted = new Map<Element, Mounted>();
  let visitor: string | undefined;
  let catalogue: Promise<BrowserWidget[]> | undefined;

  const attribution = () => readAttribution(document.cookie);
  const context: WidgetContext = { api, texts, currency: options.currency ?? 'USD', referralCode: () => attribution()?.referral_code };

  const keep = (code: string, days: number) => {
    document.cookie = attributionCookie(code, days, { secure: location.protocol === 'https:', domain: options.cookieDomain });
  };
  const ready = (async () => {
    const code = landingCode(location.search);
    if (!code) return;
    try {
      const { referral_code } = await api.call<{ referral_code: { code: string; attribution_days: number } }>(
        'GET',
        `/referral_codes/${encodeURIComponent(code)}`,
      );
      keep(referral_code.code, referral_code.attribution_days);
    } catch (error) {
      // An unknown code is not kept; when the service cannot be asked, the code is kept for the default time.
      if (!(error instanceof ReferralError) || error.status >= 500 || error.status === 429) keep(code, DEFAULT_DAYS);
    }
  })();

  const choose = async (choice: RenderOptions): Promise<BrowserWidget | null> => {
    const variant = async (id: number) =>
      (await api.call<{ widget: BrowserWidget }>('GET', `/widgets/${id}/variant?visitor=${encodeURIComponent(client.visitor())}`)).widget;
    if (choice.widget !== undefined) return variant(choice.widget);
    catalogue ??= api.call<{ widgets: BrowserWidget[] }>('GET', '/widgets').then((answer) => answer.widgets);
    const objective = choice.objective ?? 'referral';
    const found = (await catalogue).find((widget) => widget.objective === objective);
    if (!found) return null;
    return found.distribution < 100 ? variant(found.id) : found;
  };

  const client: Referral = {
    ready,
    attribution,
    visitor: () => (visitor ??= visitorId()),
    customer(token, refresh) {
      api.setCustomer(token, refresh);
      for (const [element, shown] of mounted) if (shown.widget.objective !== 'email_capture') mounted.set(element, mount(element, shown.widget, context));
    },
    async render(target, choice = {}) {
      const element = typeof target === 'string' ? document.querySelector(target) : target;
      if (!element) throw new Error(`referral: no element matches ${String(target)}`);
      const widget = await choose(choice);
      if (!widget) return null;
      const shown = mount(element, widget, context);
      mounted.set(element, shown);
      return shown;
    },
    renderAll(root = document) {
      const elements = Array.from(root.querySelectorAll('[data-referral-widget]'));
      return Promise.all(
        elements.map((element) => {
          const value = element.getAttribute('data-referral-widget') || 'referral';
          const choice: RenderOptions = /^\d+$/.test(value)
            ? { widget: Number(value) }
            : { objective: value === 'email_capture' ? 'email_capture' : 'referral' };
          return client.render(element, choice).catch((error: unknown) => {
            console.warn('referral: widget not shown:', error instanceof Error ? error.message : error);
            return null;
          });
        }),
      );
    },
    async trackPurchase(order) {
      if (typeof order?.purchase_token !== 'string') throw new Error('referral: trackPurchase needs the purchase_token your server signed');
      await ready;
      // The visitor's code goes along unless the merchant's server pinned one in the token.
      const code = claims(order.purchase_token)?.referral_code === undefined ? attribution()?.referral_code : undefined;
      try {
        const answer = await api.call<{ purchase: Extract<TrackedPurchase, { status: 'recorded' }>['purchase'] }>('POST', '/purchases', {
          purchase_token: order.purchase_token,
          ...(code ? { referral_code: code } : {}),
        });
        return { status: 'recorded', purchase: answer.purchase };
      } catch (error) {
        if (error instanceof ReferralError && error.status === 409) return { status: 'already_recorded' };
        throw error;
      }
    },
  };
  return client;
}
