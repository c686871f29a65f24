/**
 * Connections that hold the server without finishing a request: a body that never arrives, one
 * that trickles in, and more sockets than MAX_CONNECTIONS. Raw sockets (node:net) on 127.0.0.1.
 */
import { connect, Socket } from 'node:net';
import { Service } from '../support/service.js';

interface Outcome {
  closed: boolean;
  received: string;
}

/** Opens a socket to the service and resolves once it is connected. */
function open(service: Service): Promise<Socket> {
  const { hostname, port } = new URL(service.url);
  return new Promise((resolve, reject) => {
    const socket = connect({ host: hostname, port: Number(port) }, () => resolve(socket));
    socket.once('error', reject);
  });
}

/** What the server sent, once it closed the socket, or after `waitMs` (then `closed` is false and the socket is destroyed). */
function outcome(socket: Socket, waitMs: number): Promise<Outcome> {
  return new Promise((resolve) => {
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    const timer = setTimeout(() => {
      socket.destroy();
      resolve({ closed: false, received });
    }, waitMs);
    socket.once('close', () => {
      clearTimeout(timer);
      resolve({ closed: true, received });
    });
  });
}

const HEAD = 'POST /v2/tokens/merchant HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000000\r\n\r\n';

/** Service start-up dominates; the sockets' own waits are bounded by `outcome`. */
const TEST_MS = 30_000;

describe('slow requests and connection floods', () => {
  it(
    'closes a socket whose body stops after one byte, with a 408',
    async () => {
      const service = await Service.start({ env: { REQUEST_TIMEOUT_MS: '500' } });
      try {
        const socket = await open(service);
        socket.write(HEAD + '{');
        const result = await outcome(socket, 10_000);
        expect(result.closed).toBe(true);
        expect(result.received).toMatch(/^HTTP\/1\.1 408 /);
        expect(result.received).toContain('{"errors":["the request took too long to arrive"]}');
      } finally {
        await service.stop();
      }
    },
    TEST_MS,
  );

  it(
    'closes a socket whose body trickles in a byte at a time, never idle long enough for the connection timeout',
    async () => {
      const service = await Service.start({ env: { REQUEST_TIMEOUT_MS: '600', CONNECTION_TIMEOUT_MS: '60000' } });
      const socket = await open(service);
      const drip = setInterval(() => socket.writable && socket.write(' '), 50);
      try {
        socket.write(HEAD + '{');
        const result = await outcome(socket, 10_000);
        expect(result.closed).toBe(true);
        expect(result.received).toMatch(/^HTTP\/1\.1 408 /);
      } finally {
        clearInterval(drip);
        await service.stop();
      }
    },
    TEST_MS,
  );

  it(
    'closes connections past MAX_CONNECTIONS as they arrive, and takes new ones once others end',
    async () => {
      const service = await Service.start({ env: { MAX_CONNECTIONS: '2' } });
      const held: Socket[] = [];
      try {
        held.push(await open(service), await open(service));
        // Connections are accepted in the order they arrive: the third is past the cap.
        const third = await open(service);
        third.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n');
        const refused = await outcome(third, 10_000);
        expect(refused).toEqual({ closed: true, received: '' });
        for (const socket of held.splice(0)) socket.destroy();
        // Once the server has seen them close, a new connection is served (tried a bounded number of times).
        let answer = '';
        for (let attempt = 0; attempt < 50 && !answer.startsWith('HTTP/1.1 200 '); attempt += 1) {
          const next = await open(service);
          next.write('GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n');
          answer = (await outcome(next, 5_000)).received;
          if (!answer) await new Promise((resolve) => setTimeout(resolve, 100));
        }
        expect(answer).toMatch(/^HTTP\/1\.1 200 /);
      } finally {
        for (const socket of held) socket.destroy();
        await service.stop();
      }
    },
    TEST_MS,
  );
});
