import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { CDPSession, Page } from 'playwright-core';
import { DashboardIdentity } from '../src/dashboard/identity';
import { configSchema } from '../src/config';
import { DashboardBrowser, PASSWORD } from '../test/helpers/dashboard';
import { eventually } from '../test/helpers/http';
import { resultsDir, round } from './common';
import { startPageStack } from './page-stack';
import { mediansByLanguage, meter, phonePage, slowMobileNetwork as network } from './phone-browser';

// The merchant dashboard on a staff member's phone on a slow mobile network (issue 44): Chromium
// at 360 × 740 with the network emulated at 1.6 Mbps down, 750 kbps up and 150 ms latency, the
// page served by the API as in production (dist/dashboard, built by `npm run bench:dashboard`).
// Each visit starts in a fresh profile (nothing cached) and times, in English and in French:
//   - sign-in usable: from the navigation to /dashboard to the sign-in form shown and enabled;
//   - Home with its figures: from the Sign in click to the balance figures and the 30-day chart;
//   - Home again, cold: a reload with the browser's cache emptied (a returning member whose
//     cache was cleared), from the navigation to the figures and the chart.
// Bytes on the wire and requests for each. Targets: sign-in ≤ 2 s, Home with its figures ≤ 3 s.
// Figures, not a timed test (the machine is noisy). `npx tsx bench/dashboard-page.ts`
// (BENCH_DASHBOARD_RUNS, 3 visits per language by default).

const runs = Number(process.env.BENCH_DASHBOARD_RUNS ?? 3);
const SIGN_IN = { en: 'Sign in', fr: 'Se connecter' } as const;
const EMAIL = { en: 'Email address', fr: 'Adresse e-mail' } as const;
const PASSWORD_LABEL = { en: 'Password', fr: 'Mot de passe' } as const;

interface Visit {
  lang: 'en' | 'fr';
  signInMs: number;
  signInBytes: number;
  signInRequests: number;
  homeMs: number;
  homeBytes: number;
  homeRequests: number;
  homeColdMs: number;
  homeColdBytes: number;
  homeColdRequests: number;
}

/** Home's figures: a balance figure and the chart's drawn lines (recharts, loaded on its own). */
async function homeFigures(page: Page): Promise<void> {
  await page.locator('.tile-figure').first().waitFor({ timeout: 60_000 });
  await page.locator('.recharts-line-curve').first().waitFor({ timeout: 60_000 });
}

async function visit(
  page: Page,
  cdp: CDPSession,
  url: string,
  lang: 'en' | 'fr',
  email: string,
): Promise<Visit> {
  const counted = meter(cdp);
  let t = Date.now();
  await page.goto(url, { waitUntil: 'commit' });
  const field = page.getByLabel(EMAIL[lang]);
  await field.waitFor({ timeout: 60_000 });
  await page.getByRole('button', { name: SIGN_IN[lang] }).waitFor();
  if (!(await field.isEnabled())) throw new Error('sign-in form shown disabled');
  const signInMs = Date.now() - t;
  const signIn = counted.read();

  await field.fill(email);
  await page.getByLabel(PASSWORD_LABEL[lang], { exact: true }).fill(PASSWORD);
  counted.reset();
  t = Date.now();
  await page.getByRole('button', { name: SIGN_IN[lang] }).click();
  await homeFigures(page);
  const homeMs = Date.now() - t;
  const home = counted.read();

  await cdp.send('Network.clearBrowserCache');
  counted.reset();
  t = Date.now();
  await page.reload({ waitUntil: 'commit' });
  await homeFigures(page);
  const homeColdMs = Date.now() - t;
  const cold = counted.read();
  return {
    lang,
    signInMs,
    signInBytes: signIn.bytes,
    signInRequests: signIn.requests,
    homeMs,
    homeBytes: home.bytes,
    homeRequests: home.requests,
    homeColdMs,
    homeColdBytes: cold.bytes,
    homeColdRequests: cold.requests,
  };
}

async function main(): Promise<void> {
  const { stack, merchant, api, stop } = await startPageStack('dashboard');
  try {
    // A few paid payins, so Home has a balance, volumes and a line to draw.
    const references: string[] = [];
    for (let i = 0; i < 5; i++) {
      const reference = `dash-${i}`;
      const created = await api.post('/v1/direct/payin', {
        reference,
        sandboxScenario: 'completed',
        customerName: 'Awa Koné',
        payin: { amount: 10_000 + i, msisdn: `+22505000000${i + 10}`, provider: 'MTN', country: 'CI' },
        action: { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' },
      });
      if (created.status !== 201) throw new Error(`payin: ${created.status}`);
      references.push(reference);
    }
    for (const reference of references)
      await eventually(
        () => api.get(`/v1/payin/${reference}`),
        (r) => r.body.status === 'success',
        60_000,
      );
    // One member per language, invited as the operator's CLI does and accepted over HTTP.
    const identity = DashboardIdentity.on(stack.mongo, configSchema.parse({}).DATA_ENCRYPTION_KEYS);
    await identity.init();
    const members = {} as Record<'en' | 'fr', string>;
    for (const lang of ['en', 'fr'] as const) {
      const email = `owner-${lang}@example.test`;
      const { token } = await identity.invitations.create({
        merchantId: merchant.merchantId,
        email,
        role: 'owner',
        invitedBy: 'operator',
      });
      const accepted = await new DashboardBrowser(stack.apiUrl).post(
        `/dashboard/api/invitations/${token}/accept`,
        {
          name: 'Aminata Traoré',
          password: PASSWORD,
        },
      );
      if (accepted.status !== 201) throw new Error(`accept: ${accepted.status}`);
      members[lang] = email;
    }

    const visits: Visit[] = [];
    for (let i = 0; i < runs; i++) {
      for (const lang of ['en', 'fr'] as const) {
        const { browser, page, cdp } = await phonePage(lang, { width: 360, height: 740 });
        try {
          visits.push(await visit(page, cdp, `${stack.apiUrl}/dashboard/`, lang, members[lang]));
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
            signInMs: m.signInMs,
            signInKB: round(m.signInBytes / 1000),
            signInRequests: m.signInRequests,
            homeMs: m.homeMs,
            homeKB: round(m.homeBytes / 1000),
            homeRequests: m.homeRequests,
            homeColdMs: m.homeColdMs,
            homeColdKB: round(m.homeColdBytes / 1000),
            homeColdRequests: m.homeColdRequests,
          },
        ];
      }),
    );
    console.log(
      `dashboard at 360 × 740, ${runs} visit(s) per language, medians (1.6 Mbps down, 750 kbps up, 150 ms):`,
    );
    for (const [lang, s] of Object.entries(summary))
      console.log(
        `  ${lang}: sign-in usable in ${s.signInMs} ms (${s.signInKB} kB, ${s.signInRequests} requests); ` +
          `Home with its figures ${s.homeMs} ms after Sign in (${s.homeKB} kB, ${s.homeRequests} requests); ` +
          `Home reloaded with an empty cache ${s.homeColdMs} ms (${s.homeColdKB} kB, ${s.homeColdRequests} requests)`,
      );
    const file = join(resultsDir, `dashboard-page-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
    mkdirSync(resultsDir, { recursive: true });
    writeFileSync(file, JSON.stringify({ network, summary, visits }, null, 2));
    console.log(`written: ${file}`);
  } finally {
    await stop();
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
