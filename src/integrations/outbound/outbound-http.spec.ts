import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { eventually } from '../../../test/support/eventually.js';
import type { Config } from '../../platform/config.js';
import { OutboundHttp } from './outbound-http.js';

const config = { webhookAllowPrivateUrls: true, webhookTimeoutMs: 5000 } as Config;
const post = (client: OutboundHttp, port: number, read: 'status' | 'body' = 'status') =>
  client.post({ url: `http://127.0.0.1:${port}/hooks`, headers: { 'Content-Type': 'application/json' }, body: '{"id":"evt"}', read });

/** A raw HTTP/1.1 server on 127.0.0.1 that answers each request with what `answer` says for its connection and request number. */
async function rawServer(answer: (connection: number, request: number) => 'ok' | 'drop') {
  const seen = { connections: 0, requests: 0 };
  const server = net.createServer((socket) => {
    const connection = ++seen.connections;
    let request = 0;
    let buffered = '';
    socket.on('error', () => undefined);
    socket.on('data', (chunk) => {
      buffered += chunk.toString('latin1');
      // Each request is headers and a 12-byte body ('{"id":"evt"}').
      for (let end = buffered.indexOf('\r\n\r\n'); end >= 0 && buffered.length >= end + 4 + 12; end = buffered.indexOf('\r\n\r\n')) {
        buffered = buffered.slice(end + 4 + 12);
        seen.requests += 1;
        request += 1;
        if (answer(connection, request) === 'drop') socket.destroy();
        else socket.write('HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: keep-alive\r\n\r\nok');
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { seen, port: (server.address() as AddressInfo).port, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('outbound HTTP', () => {
  let client: OutboundHttp;
  beforeEach(() => (client = new OutboundHttp(config)));
  afterEach(() => client.abortAll());

  it("sends an origin's requests over one kept connection, also when only the status was read", async () => {
    let connections = 0;
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => res.writeHead(200, { 'content-type': 'text/plain' }).end('received'));
    });
    server.on('connection', () => (connections += 1));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const results = [];
      for (let i = 0; i < 3; i += 1) results.push(await post(client, port));
      results.push(await post(client, port, 'body'));
      expect(results.map((r) => [r.statusCode, r.error])).toEqual(Array(4).fill([200, null]));
      expect(results[3].body?.toString()).toBe('received');
      expect(connections).toBe(1);
      await eventually(async () => expect(client.openExchanges).toBe(0));
    } finally {
      client.abortAll();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('sends a request once more on a new connection when the server drops the kept one as the request arrives', async () => {
    // The first connection answers its first request, then closes when the second comes.
    const server = await rawServer((connection, request) => (connection === 1 && request === 2 ? 'drop' : 'ok'));
    try {
      expect([(await post(client, server.port)).statusCode]).toEqual([200]);
      const again = await post(client, server.port);
      expect([again.statusCode, again.error]).toEqual([200, null]);
      expect(server.seen).toEqual({ connections: 2, requests: 3 });
    } finally {
      client.abortAll();
      await server.close();
    }
  });

  it('does not send again a request whose new connection was dropped: that is the attempt failing', async () => {
    const server = await rawServer(() => 'drop');
    try {
      const result = await post(client, server.port);
      expect([result.statusCode, result.error]).toEqual([null, 'connection reset']);
      expect(server.seen).toEqual({ connections: 1, requests: 1 });
    } finally {
      client.abortAll();
      await server.close();
    }
  });

  it('cuts off an answer that never ends at the timeout: the status decides at once, the exchange is over when the timer runs out', async () => {
    const short = new OutboundHttp({ ...config, webhookTimeoutMs: 300 });
    let serverSocketClosed = false;
    const server = http.createServer((req, res) => {
      req.resume();
      req.socket.on('close', () => (serverSocketClosed = true));
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.write('never ends');
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const result = await post(short, (server.address() as AddressInfo).port);
      expect([result.statusCode, result.error]).toEqual([200, null]);
      expect(short.openExchanges).toBe(1);
      await eventually(async () => expect([short.openExchanges, serverSocketClosed]).toEqual([0, true]), 3000);
    } finally {
      short.abortAll();
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('interrupts the requests in flight on abortAll, and sends nothing after it', async () => {
    let received = 0;
    const server = http.createServer((req) => {
      received += 1;
      req.resume();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    try {
      const pending = post(client, port);
      await eventually(async () => expect(received).toBe(1));
      client.abortAll();
      expect(await pending).toMatchObject({ statusCode: null, error: 'the service is shutting down', interrupted: true });
      expect(await post(client, port)).toMatchObject({ interrupted: true });
      expect(received).toBe(1);
      await eventually(async () => expect(client.openExchanges).toBe(0));
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
