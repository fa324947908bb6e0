import { mkdirSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { join } from 'node:path';
import type { CDPSession, Page } from 'playwright-core';
import { resultsDir, round } from './common';
import { startPageStack } from './page-stack';
import { mediansByLanguage, meter, phonePage, slowMobileNetwork as network } from './phone-browser';

// The hosted checkout page on a customer's phone on a slow mobile network (issue 45): Chromium at
// 390 × 844 with the network emulated at 1.6 Mbps down, 750 kbps up, 150 ms latency and the CPU
// slowed 4×, from the merchant's redirect to the page usable (its load event: the script has run
// and wired the form) and to the payment's confirmation (the redirect to the merchant's success
// page), in English and in French. It prints bytes transferred and requests for each, and the
// times; not a timed test (the machine is noisy). `npx tsx bench/checkout-page.ts` (BENCH_CHECKOUT_RUNS).

const runs = Number(process.env.BENCH_CHECKOUT_RUNS ?? 3);
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
  const { api, stop } = await startPageStack('checkout');
  let merchantSite: Server | undefined;
  try {
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
        const { browser, page, cdp } = await phonePage(lang, { width: 390, height: 844 }, CPU_SLOWDOWN);
        try {
          const { paymentUrl } = created.body as { paymentUrl: string };
          visits.push(await visit(page, cdp, paymentUrl, lang, `${merchantUrl}/ok`));
        } finally {
          await browser.close();
        }
      }
    }
    const medians = mediansByLanguage(visits);
    const summary = Object.fromEntries(
      (['en', 'fr'] as const).map((lang) => {
        const m = medians[lang];
        return [
          lang,
          {
            usableMs: m.usableMs,
            firstContentfulPaintMs: m.firstContentfulPaintMs,
            usableKB: round(m.usableBytes / 1000),
            usableRequests: m.usableRequests,
            confirmedMs: m.confirmedMs,
            totalKB: round(m.totalBytes / 1000),
            totalRequests: m.totalRequests,
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
  } finally {
    await new Promise((r) => (merchantSite ? merchantSite.close(r) : r(undefined)));
    await stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
