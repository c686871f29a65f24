/** Calls to the service's browser routes (docs/embedding.md): the publishable key always, the customer token where a route needs one. */

/** A refusal from the service: its status and the `errors` of its `{"errors": [...]}` body. */
export class ReferralError extends Error {
  constructor(
    readonly status: number,
    readonly errors: unknown[],
  ) {
    super(errors.map(describe).join('; ') || `request failed (${status})`);
    this.name = 'ReferralError';
  }
}

/** An error entry as a sentence: entries are strings or `{message}` objects. */
function describe(entry: unknown): string {
  if (typeof entry === 'string') return entry;
  const message = (entry as { message?: unknown } | null)?.message;
  return typeof message === 'string' ? message : JSON.stringify(entry);
}

/** Where the merchant's server gets a fresh customer token (POST /v2/tokens/customer) for the page. */
export type TokenRefresher = () => Promise<string> | string;

export class Api {
  private token: string | undefined;
  private refresher: TokenRefresher | undefined;
  private refreshing: Promise<string> | undefined;

  constructor(
    /** The service's base address, e.g. `https://referrals.example` or `https://referrals.example/sandbox`. */
    readonly base: string,
    private readonly publishableKey: string,
  ) {}

  setCustomer(token: string | undefined, refresh?: TokenRefresher): void {
    this.token = token || undefined;
    if (refresh) this.refresher = refresh;
  }

  hasCustomer(): boolean {
    return this.token !== undefined || this.refresher !== undefined;
  }

  /** One call; a route that needs the customer is retried once with a refreshed token after a 401. */
  async call<T>(method: 'GET' | 'POST', path: string, body?: object, customer = false): Promise<T> {
    if (customer && this.token === undefined) await this.refresh();
    let response = await this.send(method, path, body, customer);
    if (customer && response.status === 401 && this.refresher) {
      await this.refresh();
      response = await this.send(method, path, body, customer);
    }
    const text = await response.text();
    let parsed: unknown;
    try {
      parsed = text ? JSON.parse(text) : {};
    } catch {
      parsed = {};
    }
    if (!response.ok) {
      const errors = (parsed as { errors?: unknown }).errors;
      throw new ReferralError(response.status, Array.isArray(errors) ? errors : []);
    }
    return parsed as T;
  }

  private send(method: string, path: string, body: object | undefined, customer: boolean): Promise<Response> {
    const headers: Record<string, string> = { 'X-Publishable-Key': this.publishableKey };
    if (customer && this.token) headers['X-Customer-Token'] = this.token;
    if (body) headers['Content-Type'] = 'application/json';
    // No cookies cross to the service: the browser routes use only these headers.
    return fetch(`${this.base}/browser/v1${path}`, { method, headers, body: body ? JSON.stringify(body) : undefined, credentials: 'omit', mode: 'cors' });
  }

  /** One refresh at a time, however many calls found the token expired. */
  private async refresh(): Promise<string> {
    if (!this.refresher) throw new ReferralError(401, ['no customer token: pass one to referral("customer", {token, refresh})']);
    this.refreshing ??= Promise.resolve()
      .then(() => this.refresher!())
      .finally(() => (this.refreshing = undefined));
    this.token = await this.refreshing;
    return this.token;
  }
}
