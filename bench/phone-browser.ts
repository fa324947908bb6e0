import type { CDPSession, Page } from 'playwright-core';
import { launchBrowser, type TestBrowser } from '../test/helpers/browser';

// A customer's or a staff member's phone on a slow mobile network, for the page benches
// (bench/checkout-page.ts, bench/dashboard-page.ts): Chromium in a fresh profile (nothing cached),
// the network emulated through the DevTools protocol, bytes and requests counted as its panel does.

export const slowMobileNetwork = {
  offline: false,
  latency: 150,
  downloadThroughput: (1.6e6 / 8) | 0,
  uploadThroughput: (750e3 / 8) | 0,
};

export type Language = 'en' | 'fr';

/** A fresh phone-sized browser in `lang` on the slow network (and a slower CPU when asked). */
export async function phonePage(
  lang: Language,
  viewport: { width: number; height: number },
  cpuSlowdown?: number,
): Promise<{ browser: TestBrowser; page: Page; cdp: CDPSession }> {
  const browser = await launchBrowser({
    viewport,
    isMobile: true,
    hasTouch: true,
    locale: lang === 'fr' ? 'fr-CI' : 'en-GB',
  });
  const page = await browser.context.newPage();
  const cdp = await browser.context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.emulateNetworkConditions', slowMobileNetwork);
  if (cpuSlowdown) await cdp.send('Emulation.setCPUThrottlingRate', { rate: cpuSlowdown });
  return { browser, page, cdp };
}

/** Bytes on the wire (headers included) and requests since the start or the last `reset`. */
export function meter(cdp: CDPSession) {
  let bytes = 0;
  let requests = 0;
  cdp.on('Network.requestWillBeSent', () => requests++);
  cdp.on('Network.loadingFinished', (e: { encodedDataLength: number }) => (bytes += e.encodedDataLength));
  return {
    reset: () => {
      bytes = 0;
      requests = 0;
    },
    read: () => ({ bytes, requests }),
  };
}

/** Per language, the median of each figure of its visits. */
export function mediansByLanguage<V extends { lang: Language }>(
  visits: V[],
): Record<Language, Record<Exclude<keyof V, 'lang'>, number>> {
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const of = (lang: Language) => {
    const mine = visits.filter((v) => v.lang === lang);
    const keys = Object.keys(mine[0] ?? {}).filter((k) => k !== 'lang') as Exclude<keyof V, 'lang'>[];
    return Object.fromEntries(keys.map((k) => [k, median(mine.map((v) => Number(v[k])))])) as Record<
      Exclude<keyof V, 'lang'>,
      number
    >;
  };
  return { en: of('en'), fr: of('fr') };
}
