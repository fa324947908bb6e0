import { DashboardBrowser } from '../helpers/dashboard';

// The per-address limiters of the dashboard (failed sign-ins, which failed invitation accepts also
// count) must see each test browser alone: a browser drawn at random among 250 addresses sometimes
// shared the one an earlier test of the file had driven to its limit, and its accept answered 429
// instead of 410 (dashboard-auth.test.ts, "two concurrent accepts, one member", issue 41).
test('every dashboard test browser of a file has its own client address', () => {
  const addresses = Array.from({ length: 600 }, () => new DashboardBrowser('http://127.0.0.1:1').address);
  expect(new Set(addresses).size).toBe(addresses.length);
  for (const a of addresses)
    expect(a).toMatch(/^(198\.51\.100|203\.0\.113|192\.0\.2)\.([1-9]\d?|1\d\d|2[0-4]\d|25[0-4])$/);
});
