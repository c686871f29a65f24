/**
 * Which addresses the service refuses to send webhooks and client-API calls to (unless
 * WEBHOOK_ALLOW_PRIVATE_URLS): anything that is not a public unicast address, so that a
 * merchant-supplied URL cannot reach the service's own host, its network or cloud metadata.
 * IPv4-mapped IPv6 addresses are judged by their IPv4 address (net.BlockList does this).
 */
import { BlockList, isIP } from 'node:net';

const blocked = new BlockList();
for (const [network, prefix] of [
  ['0.0.0.0', 8], // "this" network
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation
  ['192.88.99.0', 24], // 6to4 relay anycast
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation
  ['203.0.113.0', 24], // documentation
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, broadcast
] as const) {
  blocked.addSubnet(network, prefix, 'ipv4');
}
for (const [network, prefix] of [
  // unspecified (::), loopback (::1), and the deprecated IPv4-compatible addresses (::a.b.c.d),
  // which some stacks still route to the IPv4 address, e.g. ::127.0.0.1 to loopback
  ['::', 96],
  ['::ffff:0:0:0', 96], // IPv4-translated (SIIT), e.g. ::ffff:0:7f00:1 for 127.0.0.1
  ['64:ff9b:1::', 48], // local-use NAT64
  ['100::', 64], // discard
  ['2001::', 32], // Teredo: carries an IPv4 server and (obfuscated) client address, e.g. one of 127.0.0.1
  ['2001:db8::', 32], // documentation
  ['fc00::', 7], // unique local
  ['fe80::', 10], // link-local
  ['fec0::', 10], // site-local (deprecated)
  ['ff00::', 8], // multicast
] as const) {
  blocked.addSubnet(network, prefix, 'ipv6');
}

/** The IPv4 address embedded in a NAT64 (64:ff9b::/96) or 6to4 (2002::/16) address. */
function embeddedIpv4(address: string): string | undefined {
  const groups = expandIpv6(address);
  if (!groups) return undefined;
  const v4 = (hi: number, lo: number) => `${hi >> 8}.${hi & 255}.${lo >> 8}.${lo & 255}`;
  if (groups[0] === 0x64 && groups[1] === 0xff9b && groups.slice(2, 6).every((g) => g === 0)) return v4(groups[6], groups[7]);
  if (groups[0] === 0x2002) return v4(groups[1], groups[2]);
  return undefined;
}

function expandIpv6(address: string): number[] | undefined {
  let text = address.toLowerCase().split('%')[0];
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted[1].split('.').map(Number);
    text = text.slice(0, -dotted[1].length) + `${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = text.split('::');
  const h = head ? head.split(':') : [];
  const t = tail !== undefined && tail !== '' ? tail.split(':') : [];
  const missing = 8 - h.length - t.length;
  if (text.includes('::') ? missing < 0 : h.length !== 8) return undefined;
  return [...h, ...Array(text.includes('::') ? missing : 0).fill('0'), ...t].map((g) => parseInt(g, 16));
}

/** True when the address (IPv4 or IPv6 text) is private, loopback, link-local or otherwise not public. */
export function isDisallowedAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, '');
  const family = isIP(bare);
  if (family === 4) return blocked.check(bare, 'ipv4');
  if (family === 6) {
    if (blocked.check(bare, 'ipv6')) return true;
    const v4 = embeddedIpv4(bare);
    return v4 !== undefined && blocked.check(v4, 'ipv4');
  }
  return true; // not an address at all: refuse
}

/** The host of a URL as net functions want it (IPv6 without brackets). */
export function bareHostname(url: URL): string {
  return url.hostname.replace(/^\[|\]$/g, '');
}
