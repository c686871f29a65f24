import { isDisallowedAddress } from './address-policy.js';

describe('address policy', () => {
  it.each([
    '127.0.0.1',
    '127.8.9.10',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254',
    '100.64.0.1',
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::1',
    '::',
    'fe80::1',
    'fd12:3456::1',
    'ff02::1',
    '::ffff:127.0.0.1',
    '::ffff:10.0.0.1',
    '[::1]',
    '64:ff9b::a9fe:a9fe',
    '2002:7f00:1::1',
    // Teredo, whose client part is 127.0.0.1 obfuscated
    '2001:0:4136:e378:8000:63bf:80ff:fffe',
    // IPv4-compatible and IPv4-translated forms of loopback
    '::127.0.0.1',
    '::7f00:1',
    '::ffff:0:7f00:1',
    '::ffff:0:127.0.0.1',
    'not-an-address',
  ])('refuses %s', (address) => {
    expect(isDisallowedAddress(address)).toBe(true);
  });

  it.each(['93.184.216.34', '8.8.8.8', '172.32.0.1', '2606:4700::1111', '::ffff:8.8.8.8', '64:ff9b::808:808'])('allows %s', (address) => {
    expect(isDisallowedAddress(address)).toBe(false);
  });
});
