import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { CDPSession, Page } from 'playwright-core';
import { MerchantService } from '../src/merchants';
import { waitForPort, type LocalServer } from '../src/infra/local-servers';
import { launchBrowser } from '../test/helpers/browser';
import { ApiClient } from '../test/helpers/http';
import { resultsDir, round } from './common';
import { nodeProcess, stopProcess, waitForPoller } from './processes';
import { benchService, embeddedServers } from './servers';

// The hosted checkout page on a customer's phone on a slow mobile network (issue 45): Chromium at
// 390 × 844 with the network emulated at 1.6 Mbps down, 750 kbps up, 150 ms latency and the CPU
// slowed 4×, from the merchant's redirect to the page usable (its load event: the script has run
// and wired the form) and to the payment's confirmation (the redirect to the merchant's success
// page), in English and in French. It prints bytes transferred and requests for each, and the
// times; not a timed test (the machine is noisy). `npx tsx bench/checkout-page.ts` (BENCH_CHECKOUT_RUNS).

const runs = Number(process.env.BENCH_CHECKOUT_RUNS ?? 3);
const network = {
  offline: false,
  latency: 150,
  downloadThroughput: (1.6e6 / 8) | 0,
  uploadThroughput: (750e3 / 8) | 0,
};
const CPU_SLOWDOWN = 4;

interface Visit {
  lang: 'en' | 'fr';
  usableMs: number;
  firstContentfulPaintMs: number;
  usableBytes: number;
  usableRequests: number;
  confirmedMs: number;
  totalBytes: number;
  totalRequests: number;
}

/** Bytes on the wire (headers included) and requests, as Chromium's network panel counts them. */
function meter(cdp: CDPSession) {
  let bytes = 0;
  let requests = 0;
  cdp.on('Network.requestWillBeSent', () => requests++);
  cdp.on('Network.loadingFinished', (e: { encodedDataLength: number }) => (bytes += e.encodedDataLength));
  return { read: () => ({ bytes, requests }) };
}

async function visit(page: Page, cdp: CDPSession, url: string, lang: 'en' | 'fr', okUrl: string) {
  const counted = meter(cdp);
  await page.goto(url, { waitUntil: 'load' });
  const timing = JSON.parse(
    await page.evaluate<string>(
      `JSON.stringify({ load: performance.getEntriesByType('navigation')[0].loadEventEnd,
        fcp: (performance.getEntriesByName('first-contentful-paint')[0] || {}).startTime || 0 })`,
    ),
  ) as { load: number; fcp: number };
  const usable = counted.read();
  const clicked = Date.now();
  await page.getByTestId('confirm').click();
  await page.waitForURL((u) => u.href.startsWith(okUrl), { timeout: 60_000 });
  const total = counted.read();
  return {
    lang,
    usableMs: Math.round(timing.load),
    firstContentfulPaintMs: Math.round(timing.fcp),
    usableBytes: usable.bytes,
    usableRequests: usable.requests,
    // From the click; the page was usable before it.
    confirmedMs: Math.round(timing.load + (Date.now() - clicked)),
    totalBytes: total.bytes,
    totalRequests: total.requests,
  } satisfies Visit;
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-checkout-'));
  const servers: LocalServer[] = [];
  const children: ReturnType<typeof nodeProcess>[] = [];
  let merchantSite: Server | undefined;
  try {
    const embedded = await embeddedServers(dir);
    servers.push(...embedded.servers);
    const stack = await benchService({
      mongoUri: embedded.mongoUri,
      temporalAddress: embedded.temporalAddress,
      queue: 'checkout',
      logLevel: 'warn',
    });
    children.push(nodeProcess('src/main/worker.ts', stack.env, 'worker'));
    children.push(
      nodeProcess('src/main/api.ts', { ...stack.env, PORT: String(stack.apiPort), HOST: '127.0.0.1' }, 'api'),
    );
    await waitForPort(stack.apiPort, 60_000);
    await waitForPoller(stack.client, stack.taskQueue);
    const merchants = MerchantService.on(stack.mongo);
    await merchants.init();
    const merchant = await merchants.createMerchant('Boutique Akwaba');
    const api = new ApiClient(stack.apiUrl, { apiKey: merchant.apiKey, apiClient: merchant.apiClient });
    merchantSite = await new Promise<Server>((res) => {
      const s = createServer((_req, out) => {
        out.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
        out.end('<!doctype html><title>Merchant</title><h1>Thank you</h1>');
      }).listen(0, '127.0.0.1', () => res(s));
    });
    const addr = merchantSite.address();
    const merchantUrl = `http://127.0.0.1:${typeof addr === 'object' && addr ? addr.port : 0}`;

    const visits: Visit[] = [];
    for (let i = 0; i < runs; i++) {
      for (const lang of ['en', 'fr'] as const) {
        const reference = `checkout-${lang}-${i}`;
        const created = await api.post('/v1/payin/sessions', {
          reference,
          sandboxScenario: 'completed',
          amount: 2500,
          msisdn: '+2250500000001',
          customerName: 'Awa Koné',
          country: 'CI',
          action: { successUrl: `${merchantUrl}/ok`, failureUrl: `${merchantUrl}/ko` },
        });
        if (created.status !== 201) throw new Error(`session: ${created.status}`);
        // A fresh profile each visit: a customer's first visit, nothing cached.
        const browser = await launchBrowser({
          viewport: { width: 390, height: 844 },
          isMobile: true,
          hasTouch: true,
          locale: lang === 'fr' ? 'fr-CI' : 'en-GB',
        });
        try {
          const page = await browser.context.newPage();
          const cdp = await browser.context.newCDPSession(page);
          await cdp.send('Network.enable');
          await cdp.send('Network.emulateNetworkConditions', network);
          await cdp.send('Emulation.setCPUThrottlingRate', { rate: CPU_SLOWDOWN });
          const { paymentUrl } = created.body as { paymentUrl: string };
          visits.push(await visit(page, cdp, paymentUrl, lang, `${merchantUrl}/ok`));
        } finally {
          await browser.close();
        }
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const summary = Object.fromEntries(
      (['en', 'fr'] as const).map((lang) => {
        const mine = visits.filter((v) => v.lang === lang);
        const of = (k: keyof Omit<Visit, 'lang'>) => median(mine.map((v) => v[k]));
        return [
          lang,
          {
            usableMs: of('usableMs'),
            firstContentfulPaintMs: of('firstContentfulPaintMs'),
            usableKB: round(of('usableBytes') / 1000),
            usableRequests: of('usableRequests'),
            confirmedMs: of('confirmedMs'),
            totalKB: round(of('totalBytes') / 1000),
            totalRequests: of('totalRequests'),
          },
        ];
      }),
    );
    console.log(
      `checkout page, ${runs} visit(s) per language, medians (1.6 Mbps down, 750 kbps up, 150 ms, CPU ${CPU_SLOWDOWN}× slower):`,
    );
    for (const [lang, s] of Object.entries(summary))
      console.log(
        `  ${lang}: usable in ${s.usableMs} ms (first paint ${s.firstContentfulPaintMs} ms) after ${s.usableKB} kB in ${s.usableRequests} requests; ` +
          `confirmation shown at ${s.confirmedMs} ms, ${s.totalKB} kB in ${s.totalRequests} requests in all`,
      );
    const file = join(resultsDir, `checkout-page-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    mkdirSync(resultsDir, { recursive: true });
    writeFileSync(file, JSON.stringify({ network, cpuSlowdown: CPU_SLOWDOWN, summary, visits }, null, 2));
    console.log(`written: ${file}`);
    await stack.simulator.stop();
    await stack.mongo.close();
    await stack.temporalConn.close();
  } finally {
    await new Promise((r) => (merchantSite ? merchantSite.close(r) : r(undefined)));
    for (const child of children) await stopProcess(child);
    for (const server of servers.reverse()) await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
