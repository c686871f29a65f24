import { originFault } from './allowed-origins.js';

describe('originFault', () => {
  it('takes exact http and https origins, ports included', () => {
    for (const origin of ['https://shop.example', 'http://localhost:8080', 'https://127.0.0.1:8443', 'https://[::1]:3000', 'https://xn--bcher-kva.example']) {
      expect({ origin, fault: originFault(origin) }).toEqual({ origin, fault: null });
    }
  });

  it('refuses paths, wildcards, other schemes, user parts and what the browser would send otherwise', () => {
    const faults = Object.fromEntries(
      [
        'https://shop.example/',
        'https://shop.example/cart',
        'https://*.shop.example',
        '*',
        'ftp://shop.example',
        'https://user@shop.example',
        'HTTPS://Shop.example',
        'https://shop.example:443',
        'shop.example',
        'https://shop.example?x=1',
        'null',
      ].map((o) => [o, originFault(o)]),
    );
    expect(faults).toEqual({
      'https://shop.example/': 'must be an origin only: scheme://host[:port], with no path, query or fragment',
      'https://shop.example/cart': 'must be an origin only: scheme://host[:port], with no path, query or fragment',
      'https://*.shop.example': 'must be an exact origin: wildcards are not allowed',
      '*': 'must be an exact origin: wildcards are not allowed',
      'ftp://shop.example': 'must be an http or https origin',
      'https://user@shop.example': 'must be an origin without a user part',
      'HTTPS://Shop.example': 'must be written as the browser sends it: https://shop.example',
      'https://shop.example:443': 'must be written as the browser sends it: https://shop.example',
      'shop.example': 'must be an origin: scheme://host[:port], e.g. https://shop.example',
      'https://shop.example?x=1': 'must be an origin only: scheme://host[:port], with no path, query or fragment',
      null: 'must be an origin: scheme://host[:port], e.g. https://shop.example',
    });
  });
});
