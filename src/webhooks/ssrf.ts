import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns';
import { isIP } from 'node:net';
import ipaddr from 'ipaddr.js';

// Webhook URLs point our servers at addresses a merchant chooses: the classic SSRF hole. Only
// http(s) without credentials, and never a private, loopback, link-local, multicast or otherwise
// special destination. The address is checked when the connection is made (in the socket's own
// DNS lookup), because a name that resolved to a public address at registration may resolve to
// 127.0.0.1 later (DNS rebinding). `allowPrivateNetworks` lets loopback (and private ranges) through
// for development and tests; link-local (cloud metadata), multicast and the like stay refused.

export type AddressClass = 'public' | 'loopback' | 'private' | 'forbidden';

// Ranges by ipaddr.js's names (a maintained list of IANA special-purpose registries), so a range it
// learns is refused here on upgrade. Anything it names and we do not list below is 'forbidden'.
const v4Classes: Record<string, AddressClass> = {
  unicast: 'public',
  loopback: 'loopback',
  private: 'private', // RFC 1918
  carrierGradeNat: 'private', // 100.64/10
  // unspecified, broadcast, multicast, linkLocal (cloud metadata), reserved, as112, amt: forbidden
};

const v6Classes: Record<string, AddressClass> = {
  unicast: 'public',
  loopback: 'loopback',
  uniqueLocal: 'private', // fc00::/7
  // unspecified, linkLocal, multicast, deprecatedSiteLocal, discard, teredo (2001::/32: a tunnel
  // to whatever IPv4 it embeds), benchmarking, amt, as112v6, orchids, drone tags, segmentRouting,
  // reserved (documentation, 2001::/23): forbidden. Embedded IPv4 forms are judged below.
};

/** RFC 8215 local-use NAT64 (64:ff9b:1::/48): a translator inside some operator's network. */
const localNat64 = ipaddr.parseCIDR('64:ff9b:1::/48') as [ipaddr.IPv6, number];

function classifyV4(addr: ipaddr.IPv4): AddressClass {
  return v4Classes[addr.range()] ?? 'forbidden';
}

/** The IPv4 inside a translation or tunnel prefix is reached through a relay: only a public one. */
function relayed(v4: ipaddr.IPv4): AddressClass {
  return classifyV4(v4) === 'public' ? 'public' : 'forbidden';
}

/** The class of an IP address (v4 or v6; IPv4-mapped, NAT64 and 6to4 judged by the IPv4 inside). */
export function classifyAddress(address: string): AddressClass {
  const text = address.replace(/^\[|\]$/g, '').split('%')[0]!;
  const family = isIP(text);
  if (family === 0) return 'forbidden';
  let addr: ipaddr.IPv4 | ipaddr.IPv6;
  try {
    addr = ipaddr.parse(text);
  } catch {
    return 'forbidden';
  }
  if (addr.kind() === 'ipv4') return classifyV4(addr as ipaddr.IPv4);
  const v6 = addr as ipaddr.IPv6;
  const bytes = v6.toByteArray();
  const embeddedLast = () => ipaddr.fromByteArray(bytes.slice(12)) as ipaddr.IPv4;
  const range = v6.range();
  // ::a.b.c.d (deprecated IPv4-compatible, ::/96 without :: and ::1): ipaddr.js calls it unicast.
  if (range === 'unicast' && bytes.slice(0, 12).every((b) => b === 0)) return classifyV4(embeddedLast());
  switch (range) {
    case 'ipv4Mapped': // ::ffff:a.b.c.d is a plain IPv4 socket to a.b.c.d
      return classifyV4(embeddedLast());
    case 'rfc6145': // ::ffff:0:a.b.c.d, SIIT
      return relayed(embeddedLast());
    case 'rfc6052':
      if (v6.match(localNat64)) return 'forbidden';
      return relayed(embeddedLast()); // 64:ff9b::a.b.c.d, well-known NAT64
    case '6to4': // 2002:aabb:ccdd::
      return relayed(ipaddr.fromByteArray(bytes.slice(2, 6)) as ipaddr.IPv4);
    default:
      return v6Classes[range] ?? 'forbidden';
  }
}

/**
 * Which non-public destinations webhooks may reach (WEBHOOK_ALLOW_PRIVATE_NETWORKS): none (`false`),
 * this machine only (`'loopback'`, the development default), or loopback and private networks (`true`).
 */
export type PrivateNetworkAccess = boolean | 'loopback';

export function isAllowedAddress(address: string, allowPrivateNetworks: PrivateNetworkAccess): boolean {
  const cls = classifyAddress(address);
  if (cls === 'public') return true;
  if (allowPrivateNetworks === 'loopback') return cls === 'loopback';
  return allowPrivateNetworks && (cls === 'loopback' || cls === 'private');
}

export type UrlRefusal = 'scheme' | 'credentials' | 'address' | 'invalid';

/** Registration-time check: scheme, credentials, and IP literals. Names are checked on connect. */
export function checkWebhookUrl(text: string, allowPrivateNetworks: PrivateNetworkAccess): UrlRefusal | null {
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
export function guardedLookup(allowPrivateNetworks: PrivateNetworkAccess, resolve: Resolver = dnsLookup) {
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
