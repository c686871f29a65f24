/**
 * Real-browser tests: a headless Chromium (@sparticuz/chromium ships it inside its npm package)
 * driven by puppeteer-core, and a merchant's shop on an origin of its own (127.0.0.1, a port the
 * OS picks) whose pages add the library as a merchant would.
 */
import chromium from '@sparticuz/chromium';
import { mkdirSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { join } from 'node:path';
import puppeteer, { type Browser, type Page } from 'puppeteer-core';

/**
 * The package's flags are made for serverless functions: they turn off web security (CORS, which
 * these tests check), site isolation and multiple processes. Those are left out.
 */
const UNSAFE = /^--(single-process|disable-web-security|allow-running-insecure-content|disable-site-isolation-trials|disable-features=)/;

export async function launchBrowser(): Promise<Browser> {
  const args = chromium.args.filter((arg) => !UNSAFE.test(arg));
  return puppeteer.launch({ args, executablePath: await chromium.executablePath(), headless: true, defaultViewport: DESKTOP });
}

export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 390, height: 844, deviceScaleFactor: 2, isMobile: true, hasTouch: true };

/** Where the tests leave their screenshots for a person to look at. */
export const SCREENSHOTS = join(process.cwd(), 'test-output', 'screenshots');

export async function screenshot(page: Page, name: string): Promise<string> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`) as `${string}.png`;
  await page.screenshot({ path, fullPage: true });
  return path;
}

type Handler = (request: IncomingMessage, url: URL) => Promise<string | { status: number; body: string; type?: string }> | string;

/** The merchant's shop: pages and server endpoints the test sets per path. */
export class Shop {
  private readonly routes = new Map<string, Handler>();

  private constructor(
    private readonly server: Server,
    readonly origin: string,
  ) {}

  static async start(): Promise<Shop> {
    let shop: Shop | undefined;
    const server = createServer((request: IncomingMessage, response: ServerResponse) => {
      const url = new URL(request.url ?? '/', shop!.origin);
      const handler = shop!.routes.get(url.pathname);
      const send = (status: number, body: string, type = 'text/html; charset=utf-8') =>
        response.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' }).end(body);
      if (!handler) return send(404, 'not found', 'text/plain');
      Promise.resolve(handler(request, url)).then(
        (answer) => (typeof answer === 'string' ? send(200, answer) : send(answer.status, answer.body, answer.type)),
        (error: unknown) => send(500, String(error), 'text/plain'),
      );
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    shop = new Shop(server, `http://127.0.0.1:${(server.address() as { port: number }).port}`);
    return shop;
  }

  /** The same shop reached by another name: another origin, which the merchant has not allowed. */
  get otherOrigin(): string {
    return this.origin.replace('127.0.0.1', 'localhost');
  }

  route(path: string, handler: Handler): void {
    this.routes.set(path, handler);
  }

  stop(): Promise<void> {
    this.server.closeAllConnections();
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

/** A shop page with the library added as docs/embedding.md shows: the queue stub, the script tag, and the page's own lines. */
export function shopPage(options: { service: string; publishableKey: string; body: string; head?: string; title?: string }): string {
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${options.title ?? 'Trail shop'}</title>
<style>body{font:16px/1.5 Georgia,serif;margin:0;background:#f6f4ef;color:#222}main{max-width:960px;margin:0 auto;padding:24px}
h1{font-family:Georgia,serif}button{font:inherit}.product{display:grid;grid-template-columns:repeat(auto-fit,minmax(280px,1fr));gap:24px;align-items:start}</style>
<script>window.referral=window.referral||function(){(referral.q=referral.q||[]).push(arguments)};</script>
<script async src="${options.service}/js/v1/referral.js" data-publishable-key="${options.publishableKey}"></script>
${options.head ?? ''}
</head><body><main>${options.body}</main></body></html>`;
}
