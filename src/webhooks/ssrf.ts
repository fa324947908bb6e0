import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { isIP } from 'node:net';

// Webhook URLs point our servers at addresses a merchant chooses: the classic SSRF hole. Only
// http(s) without credentials, and never a private, loopback, link-local, multicast or otherwise
// special destination. The address is checked when the connection is made (in the socket's own
// DNS lookup), because a name that resolved to a public address at registration may resolve to
// 127.0.0.1 later (DNS rebinding). `allowPrivateNetworks` lets loopback and private ranges through
// for development and tests; link-local (cloud metadata), multicast and the like stay refused.

export type AddressClass = 'public' | 'loopback' | 'private' | 'forbidden';

type Range = [bytes: number[], prefix: number, cls: Exclude<AddressClass, 'public'>];

const v4 = (a: string, prefix: number, cls: Range[2]): Range => [a.split('.').map(Number), prefix, cls];
const v4Ranges: Range[] = [
  v4('127.0.0.0', 8, 'loopback'),
  v4('10.0.0.0', 8, 'private'),
  v4('172.16.0.0', 12, 'private'),
  v4('192.168.0.0', 16, 'private'),
  v4('100.64.0.0', 10, 'private'), // carrier-grade NAT
  v4('0.0.0.0', 8, 'forbidden'), // "this network", unspecified
  v4('169.254.0.0', 16, 'forbidden'), // link-local, cloud metadata
  v4('192.0.0.0', 24, 'forbidden'),
  v4('192.0.2.0', 24, 'forbidden'),
  v4('198.18.0.0', 15, 'forbidden'),
  v4('198.51.100.0', 24, 'forbidden'),
  v4('203.0.113.0', 24, 'forbidden'),
  v4('224.0.0.0', 4, 'forbidden'), // multicast
  v4('240.0.0.0', 4, 'forbidden'), // reserved, broadcast
];

function v6(text: string, prefix: number, cls: Range[2]): Range {
  return [parseIPv6(text)!, prefix, cls];
}
const v6Ranges: Range[] = [
  v6('::1', 128, 'loopback'),
  v6('fc00::', 7, 'private'), // unique local
  v6('::', 128, 'forbidden'), // unspecified
  v6('fe80::', 10, 'forbidden'), // link-local
  v6('fec0::', 10, 'forbidden'), // old site-local
  v6('ff00::', 8, 'forbidden'), // multicast
  v6('2001:db8::', 32, 'forbidden'), // documentation
  v6('100::', 64, 'forbidden'), // discard
];

function inRange(bytes: number[], [net, prefix]: Range): boolean {
  for (let bit = 0; bit < prefix; bit += 8) {
    const take = Math.min(8, prefix - bit);
    const mask = (0xff << (8 - take)) & 0xff;
    if (((bytes[bit / 8] ?? 0) & mask) !== ((net[bit / 8] ?? 0) & mask)) return false;
  }
  return true;
}

/** 16 bytes of an IPv6 address (an embedded dotted quad allowed), or null. */
export function parseIPv6(text: string): number[] | null {
  let s = text.replace(/^\[|\]$/g, '').split('%')[0]!;
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (dotted) {
    const q = dotted[1]!.split('.').map(Number);
    if (q.some((n) => n > 255)) return null;
    s =
      s.slice(0, -dotted[1]!.length) +
      `${((q[0]! << 8) | q[1]!).toString(16)}:${((q[2]! << 8) | q[3]!).toString(16)}`;
  }
  const halves = s.split('::');
  if (halves.length > 2) return null;
  const groups = (part: string) => (part ? part.split(':') : []);
  const head = groups(halves[0]!);
  const tail = halves.length === 2 ? groups(halves[1]!) : [];
  const fill = 8 - head.length - tail.length;
  if (halves.length === 1 ? fill !== 0 : fill < 0) return null;
  const all = [...head, ...Array<string>(halves.length === 2 ? fill : 0).fill('0'), ...tail];
  const bytes: number[] = [];
  for (const g of all) {
    if (!/^[0-9a-f]{1,4}$/i.test(g)) return null;
    const n = parseInt(g, 16);
    bytes.push(n >> 8, n & 0xff);
  }
  return bytes;
}

function classifyV4(bytes: number[]): AddressClass {
  return v4Ranges.find((r) => inRange(bytes, r))?.[2] ?? 'public';
}

/** The class of an IP address (v4 or v6; IPv4-mapped, NAT64 and 6to4 judged by the IPv4 inside). */
export function classifyAddress(address: string): AddressClass {
  const family = isIP(address.replace(/^\[|\]$/g, '').split('%')[0]!);
  if (family === 4) return classifyV4(address.split('.').map(Number));
  if (family !== 6) return 'forbidden';
  const b = parseIPv6(address);
  if (!b) return 'forbidden';
  const special = v6Ranges.find((r) => inRange(b, r))?.[2];
  if (special) return special;
  const zeros = (from: number, to: number) => b.slice(from, to).every((x) => x === 0);
  const embedded = (v4bytes: number[]) => classifyV4(v4bytes);
  if (zeros(0, 10) && b[10] === 0xff && b[11] === 0xff) return embedded(b.slice(12)); // ::ffff:a.b.c.d
  if (zeros(0, 12)) return embedded(b.slice(12)); // ::a.b.c.d (deprecated IPv4-compatible)
  if (b[0] === 0 && b[1] === 0x64 && b[2] === 0xff && b[3] === 0x9b && zeros(4, 12))
    return embedded(b.slice(12)); // NAT64
  if (b[0] === 0x20 && b[1] === 0x02) return embedded(b.slice(2, 6)); // 6to4
  return 'public';
}

export function isAllowedAddress(address: string, allowPrivateNetworks: boolean): boolean {
  const cls = classifyAddress(address);
  return cls === 'public' || (allowPrivateNetworks && (cls === 'loopback' || cls === 'private'));
}

export type UrlRefusal = 'scheme' | 'credentials' | 'address' | 'invalid';

/** Registration-time check: scheme, credentials, and IP literals. Names are checked on connect. */
export function checkWebhookUrl(text: string, allowPrivateNetworks: boolean): UrlRefusal | null {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return 'invalid';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'scheme';
  if (url.username || url.password) return 'credentials';
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!host) return 'invalid';
  if (isIP(host) && !isAllowedAddress(host, allowPrivateNetworks)) return 'address';
  return null;
}

export class ForbiddenDestinationError extends Error {
  readonly code = 'EFORBIDDENDEST';
}

type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;
export type Resolver = (
  hostname: string,
  options: LookupAllOptions,
  cb: (err: NodeJS.ErrnoException | null, addresses: LookupAddress[]) => void,
) => void;

/**
 * A `lookup` for http(s).request that refuses a name if any address it resolves to is not allowed;
 * the socket then connects only to the addresses it checked.
 */
export function guardedLookup(allowPrivateNetworks: boolean, resolve: Resolver = dnsLookup) {
  return (
    hostname: string,
    options: { all?: boolean; family?: number | string },
    callback: LookupCallback,
  ): void => {
    resolve(
      hostname,
      { all: true, ...(options.family ? { family: Number(options.family) } : {}) },
      (err, addresses) => {
        if (err) return callback(err, []);
        const refused = addresses.find((a) => !isAllowedAddress(a.address, allowPrivateNetworks));
        if (refused || addresses.length === 0)
          return callback(
            new ForbiddenDestinationError(
              `${hostname} resolves to ${refused?.address ?? 'nothing'}, which is not an allowed destination`,
            ),
            [],
          );
        if (options.all) return callback(null, addresses);
        callback(null, addresses[0]!.address, addresses[0]!.family);
      },
    );
  };
}
