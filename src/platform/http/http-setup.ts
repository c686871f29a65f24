/**
 * Fastify-level behaviour the API promises on every route (spec §7): 404 for unknown routes,
 * 405 with Allow for a known path with the wrong method, 406 when Accept excludes JSON,
 * 415 for bodies that are not JSON. Errors Fastify raises before Nest's handlers (body
 * parsing, 413 over 1 MiB) reach Nest's exception layer and so the same error body.
 */
import type { FastifyInstance, FastifyReply, FastifyRequest, HookHandlerDoneFunction, HTTPMethods } from 'fastify';
import FindMyWay from 'find-my-way';
import Negotiator from 'negotiator';
import { type IncomingMessage, type Server, type ServerResponse, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { type ErrorResponse, sendError } from './exception.filter.js';

export const BODY_LIMIT = 1024 * 1024;
/** Longest path parameter the router matches (Fastify's routerOptions, and the 405 check's router). */
export const MAX_PARAM_LENGTH = 500;

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: false });

const METHODS: HTTPMethods[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];
/** Methods whose requests the API expects without a body: for them an empty JSON body is no body. */
const BODYLESS_METHODS = new Set(['GET', 'HEAD', 'DELETE']);
/** The API's routes: they answer JSON only (406 otherwise). */
export const API_PREFIXES = ['/v1/', '/v2/', '/admin/', '/browser/', '/sandbox/'];
const registered = new WeakMap<FastifyInstance, Set<string>>();
/** Per instance, a router of its routes (catch-alls left out), to tell 404 from 405. */
const routers = new WeakMap<FastifyInstance, FindMyWay.Instance<FindMyWay.HTTPVersion.V1>>();

/** Every `METHOD /path` registered on the instance (for the OpenAPI coverage check). */
export function registeredRoutes(fastify: FastifyInstance): ReadonlySet<string> {
  return registered.get(fastify) ?? new Set();
}

/** A percent-encoded unreserved character (RFC 3986 §2.3: letters, digits, - . _ ~). */
const ENCODED_UNRESERVED = /%(?:2[DEde]|3[0-9]|4[1-9A-Fa-f]|5[0-9Aa]|5[Ff]|6[1-9A-Fa-f]|7[0-9Aa]|7[Ee])/g;

/** The scheme and authority of an absolute-form request target. */
const ABSOLUTE_FORM = /^[A-Za-z][A-Za-z0-9+.-]*:\/\/[^/?#]*/;

/**
 * The request's path with percent-encoded unreserved characters decoded (RFC 3986 §6.2.2.2),
 * before routing: `/%761/purchases` is `/v1/purchases`. The router decodes them when it matches,
 * so without this a check on the path (query strings on writes, Accept, the sandbox's prefix of
 * links) would see another path than the route that answers.
 */
export function normaliseUrl(url: string): string {
  // The absolute form (`POST http://host/v2/purchases?dry_run=1 HTTP/1.1`, RFC 9112 §3.2.2, which
  // servers must accept) is routed by its path: every check on the path must see that path too.
  if (url.charCodeAt(0) !== 47 /* / */) {
    const authority = ABSOLUTE_FORM.exec(url);
    if (authority !== null) url = `/${url.slice(authority[0].length).replace(/^\//, '')}`;
  }
  const query = url.indexOf('?');
  const path = query === -1 ? url : url.slice(0, query);
  if (!path.includes('%')) return url;
  return path.replace(ENCODED_UNRESERVED, (m) => String.fromCharCode(parseInt(m.slice(1), 16))) + (query === -1 ? '' : url.slice(query));
}

/** The JSON text of a /sandbox request's body, as sent: the sandbox is handed these bytes, not a re-encoding. */
const sandboxBodies = new WeakMap<object, string>();

export function sandboxBodyText(request: FastifyRequest): string | undefined {
  return sandboxBodies.get(request.raw);
}

/** A Host header: a name, an IPv4 address or a bracketed IPv6 one, and an optional port (RFC 9110 §7.2). */
const HOST = /^(?:\[[0-9A-Fa-f:.]{2,45}\]|[A-Za-z0-9._-]{1,253})(?::[0-9]{1,5})?$/;

/**
 * Registers the hooks; call before Nest registers its routes (before app.init()).
 * `hostRequired`: links are built from the Host header (no PUBLIC_BASE_URL), so HTTP/1.0 needs one too.
 */
export function installHttpBehaviour(fastify: FastifyInstance, options: { hostRequired: boolean } = { hostRequired: true }): void {
  // Requests are JSON (spec §2 rule 1): anything else is 415.
  fastify.removeContentTypeParser('text/plain');
  // JSON text is UTF-8 (RFC 8259 §8.1). Fastify's own parser decodes the body leniently, turning
  // bytes that are not UTF-8 into U+FFFD, so two different ids (0xFF and 0xFE in an account_id)
  // became one: the bytes are checked here, and a body in another charset is refused.
  const parseJson = fastify.getDefaultJsonParser('error', 'error');
  fastify.removeContentTypeParser('application/json');
  fastify.addContentTypeParser('application/json', { parseAs: 'buffer' }, (request, body, done) => {
    // Many client wrappers send `Content-Type: application/json` with every request. On a DELETE
    // (GET and HEAD bodies Fastify does not read at all) an empty body is no body, not an empty
    // JSON text: `DELETE /v1/email_opt_outs/{address}` was a 400. POST, PUT and PATCH still refuse
    // it: their routes take a body.
    if ((body as Buffer).length === 0 && BODYLESS_METHODS.has(request.method)) {
      done(null, undefined);
      return;
    }
    const charset = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(request.headers['content-type'] ?? '')?.[1];
    if (charset !== undefined && !/^utf-?8$/i.test(charset)) {
      done(Object.assign(new Error(`request bodies are JSON in UTF-8, not ${charset.slice(0, 40) || 'an empty charset'}`), { statusCode: 415 }), undefined);
      return;
    }
    let text: string;
    try {
      text = STRICT_UTF8.decode(body as Buffer);
    } catch {
      done(Object.assign(new Error('the request body is not valid UTF-8'), { statusCode: 400 }), undefined);
      return;
    }
    if (request.url.startsWith('/sandbox/')) sandboxBodies.set(request.raw, text);
    parseJson(request, text, (error, body) => {
      if (error === null) return done(null, body);
      // Fastify says "not valid JSON" also for valid JSON it refuses for a __proto__ key (or
      // constructor.prototype), which would set an object's prototype: say which.
      done(
        isJson(text)
          ? Object.assign(new Error('request bodies may not have a "__proto__" key or a "constructor" key holding "prototype"'), { statusCode: 400 })
          : error,
        undefined,
      );
    });
  });
  // The same matching as Fastify's own router: a path it does not route (a trailing slash, a
  // doubled one) is unknown for every method, so 404 rather than a 405 for the method it has.
  const routes = FindMyWay({ maxParamLength: MAX_PARAM_LENGTH });
  const known = new Set<string>();
  registered.set(fastify, known);
  routers.set(fastify, routes);

  fastify.addHook('onRoute', (route) => {
    for (const method of [route.method].flat() as HTTPMethods[]) {
      const key = `${method} ${route.url}`;
      // A catch-all (the sandbox's) forwards every path: the app behind it answers 404 and 405.
      if (known.has(key) || route.url.endsWith('*')) continue;
      known.add(key);
      routes.on(method as FindMyWay.HTTPMethod, route.url, () => undefined);
    }
  });

  // Callback style (a reply sent here ends the request: done is not called); an async hook costs
  // every request a promise and a microtask turn.
  fastify.addHook('onRequest', (request: FastifyRequest, reply: FastifyReply, done: HookHandlerDoneFunction) => {
    // HTTP/1.1 requires Host (RFC 9112 §3.2), and links are built from it: a missing or malformed
    // one (`a b`) would otherwise end up in next_page and detail_uri.
    const host = request.headers.host;
    if (host === undefined ? options.hostRequired || request.raw.httpVersion !== '1.0' : !HOST.test(host) || hostHeaders(request.raw.rawHeaders) > 1) {
      sendError(reply, {
        status: 400,
        errors: [
          host === undefined
            ? 'the Host header is required'
            : HOST.test(host)
              ? 'the request has more than one Host header'
              : 'the Host header is not a valid host[:port]',
        ],
      });
      return;
    }
    const path = request.url.split('?', 1)[0];
    if (request.routeOptions.url === undefined) {
      sendError(reply, unroutedAnswer(routes, request.method, path));
      return;
    }
    if (API_PREFIXES.some((p) => path.startsWith(p)) && request.headers.accept) {
      // Media-type parameters (charset=utf-8, version=1) still ask for JSON; only q weighs.
      const acceptable = new Negotiator({ headers: { accept: withoutParameters(request.headers.accept) } }).mediaType(['application/json']);
      if (!acceptable) {
        sendError(reply, { status: 406, errors: ['this API answers only application/json; adjust the Accept header'] });
        return;
      }
    }
    done();
  });
}

/**
 * The answer to a method and path no route takes: 405 with Allow when the path exists for another
 * method, else 404. Given before the body is read: an unknown route is a 404 whatever its body
 * (not a 400, 413 or 415 about a body no route would take).
 */
function unroutedAnswer(routes: FindMyWay.Instance<FindMyWay.HTTPVersion.V1>, method: string, path: string): ErrorResponse {
  const allowed = METHODS.filter((m) => m !== method && routed(routes.find(m as FindMyWay.HTTPMethod, path)));
  if (allowed.length > 0) return { status: 405, errors: [`method ${method} is not allowed on ${path}`], headers: { allow: allowed.join(', ') } };
  return { status: 404, errors: [`Cannot ${method} ${path.slice(0, 200)}`] };
}

/**
 * What an instance with installHttpBehaviour answers, before reading the body, to a method and path
 * none of its routes takes; undefined when one does. For a front that forwards requests to it (the
 * sandbox), so an unknown route there is a 404 before its body is read, as on the live API.
 */
export function unroutedBy(fastify: FastifyInstance, method: string, path: string): ErrorResponse | undefined {
  const routes = routers.get(fastify);
  if (routes === undefined || routed(routes.find(method as FindMyWay.HTTPMethod, path))) return undefined;
  return unroutedAnswer(routes, method, path);
}

/** A match of the 405 router that Fastify's router would route too: it routes no empty parameter (`/v2/customers/`). */
function routed(match: FindMyWay.FindResult<FindMyWay.HTTPVersion.V1> | null): boolean {
  return match !== null && Object.values(match.params).every((value) => value !== '');
}

/** How many Host headers a request has (Node keeps the first; RFC 9112 §3.2 makes more than one a 400). */
function hostHeaders(raw: string[]): number {
  let count = 0;
  for (let i = 0; i < raw.length; i += 2) if (raw[i].length === 4 && raw[i].toLowerCase() === 'host') count += 1;
  return count;
}

/** Whether `text` is JSON (for the message of a body the prototype guard refused; not on a request's usual path). */
function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** An Accept header with each media range's parameters dropped, except its weight (q). */
function withoutParameters(accept: string): string {
  return accept
    .split(',')
    .map((range) => {
      const [type, ...parameters] = range.split(';');
      const weight = parameters.find((p) => /^\s*q\s*=/i.test(p));
      return weight === undefined ? type : `${type};${weight}`;
    })
    .join(',');
}

const CLIENT_ERRORS: Readonly<Record<string, [status: number, message: string]>> = {
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'the request took too long to arrive'],
  HPE_HEADER_OVERFLOW: [431, 'the request headers are too large'],
};

/**
 * Requests Node's HTTP parser refuses before any route sees them (a bad Content-Length or chunk,
 * a NUL in a header, headers too large): the same `{"errors": [...]}` body as every other refusal,
 * in place of Fastify's default one. Mirrors Fastify's default handler otherwise.
 */
export function clientErrorHandler(error: Error & { code?: string }, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const [status, message] = CLIENT_ERRORS[error.code ?? ''] ?? [400, 'the request is not valid HTTP/1.1'];
  if (socket.writable) socket.write(rawErrorResponse(status, message));
  socket.destroy(error);
}

/** A whole HTTP/1.1 error response with the API's body, for a socket no reply object writes to. */
function rawErrorResponse(status: number, message: string, headers = ''): string {
  const body = JSON.stringify({ errors: [message] });
  return `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nContent-Type: application/json; charset=utf-8\r\n${headers}Connection: close\r\n\r\n${body}`;
}

/**
 * The two requests Node answers itself, before Fastify: an Expect other than 100-continue (a bare
 * 417) and CONNECT (the connection closed without an answer). Both get the API's error body.
 */
export function installServerAnswers(server: Server): void {
  server.on('checkExpectation', (_request: IncomingMessage, response: ServerResponse) => {
    const body = JSON.stringify({ errors: ['the only Expect this server meets is 100-continue'] });
    response.writeHead(417, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body), connection: 'close' }).end(body);
  });
  server.on('connect', (_request: IncomingMessage, socket: Duplex) => {
    socket.end(rawErrorResponse(405, 'method CONNECT is not allowed: this is no proxy'));
  });
}

/**
 * Ends a request whose headers arrived but whose body has not all arrived within `ms` (Node's
 * requestTimeout stops counting once the headers are in): 408 if nothing was answered yet, then
 * the socket is closed, so a slow or stalled body cannot hold a connection for ever.
 */
export function installRequestDeadline(fastify: FastifyInstance, ms: number): void {
  fastify.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw;
    const timer = setTimeout(() => {
      const socket = raw.socket;
      if (raw.complete || !socket || socket.destroyed) return;
      if (!reply.raw.headersSent && socket.writable) socket.write(rawErrorResponse(408, 'the request took too long to arrive'));
      socket.destroy();
    }, ms);
    timer.unref();
    reply.raw.once('close', () => clearTimeout(timer));
    done();
  });
}
