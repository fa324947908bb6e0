import { checkWebhookUrl, classifyAddress, isAllowedAddress } from '../../src/webhooks/ssrf';

// The special-purpose ranges the hand-written table missed, now named by ipaddr.js: none of them
// may be a webhook destination, not even where private networks are allowed (development).
describe('SSRF guard: ranges named by ipaddr.js', () => {
  it.each([
    ['2001::1', 'Teredo 2001::/32'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'Teredo with an embedded server and client'],
    ['64:ff9b:1::808:808', 'local-use NAT64 64:ff9b:1::/48, even of a public IPv4'],
    ['64:ff9b:1:ffff::a00:1', 'local-use NAT64 of a private IPv4'],
    ['64:ff9b::a00:1', 'well-known NAT64 of 10.0.0.1'],
    ['64:ff9b::7f00:1', 'well-known NAT64 of 127.0.0.1'],
    ['2002:a00:1::', '6to4 of 10.0.0.1'],
    ['2002:c0a8:101::1', '6to4 of 192.168.1.1'],
    ['2002:7f00:1::', '6to4 of 127.0.0.1'],
    ['::ffff:0:a00:1', 'SIIT (RFC 6145) of 10.0.0.1'],
    ['2001:2::1', 'benchmarking 2001:2::/48'],
    ['2001:3::1', 'AMT 2001:3::/32'],
    ['2001:10::1', 'deprecated ORCHID'],
    ['2001:20::1', 'ORCHIDv2'],
    ['2001:4:112::1', 'AS112-v6'],
    ['3fff::1', 'documentation 3fff::/20'],
    ['5f00::1', 'segment routing SIDs'],
    ['192.88.99.1', '6to4 relay anycast'],
    ['192.175.48.1', 'AS112'],
    ['192.52.193.1', 'AMT'],
  ])('%s (%s) is forbidden', (address) => {
    expect(classifyAddress(address)).toBe('forbidden');
    expect(isAllowedAddress(address, true)).toBe(false);
    expect(checkWebhookUrl(`https://[${address}]/hook`.replace(/\[(\d+\.\d+\.\d+\.\d+)\]/, '$1'), true)).toBe(
      'address',
    );
  });

  it.each([
    ['::ffff:10.0.0.1', 'private'],
    ['::ffff:192.168.0.1', 'private'],
    ['::ffff:100.64.0.1', 'private'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:169.254.169.254', 'forbidden'],
  ])('IPv4-mapped %s is judged by its IPv4 (%s) and refused in production', (address, cls) => {
    expect(classifyAddress(address)).toBe(cls);
    expect(isAllowedAddress(address, false)).toBe(false);
  });

  it.each([
    '8.8.8.8',
    '2001:4860:4860::8888',
    '2606:4700::1111',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::1',
  ])('%s (public, or a relay to a public IPv4) stays allowed', (address) => {
    expect(classifyAddress(address)).toBe('public');
    expect(isAllowedAddress(address, false)).toBe(true);
  });
});
