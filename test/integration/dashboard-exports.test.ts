import { randomUUID } from 'node:crypto';
import ExcelJS from 'exceljs';
import { useStack } from '../helpers/use-stack';
import { eventually } from '../helpers/http';
import { signedInMember, type DashboardBrowser } from '../helpers/dashboard';
import { createTestMerchant } from '../helpers/merchants';
import { seedHistory } from '../helpers/seed-history';
import { AuditLog, type AuditEntry } from '../../src/dashboard/access/audit-log';
import { merchantOfScope } from '../../src/domain/modes';
import { auditActionText } from '../../dashboard/src/audit-actions';
import { createInstance } from 'i18next';
import { en } from '../../dashboard/src/locales/en';
import { fr } from '../../dashboard/src/locales/fr';

// The lists' exports (issue 44 §2) over the real servers: a viewer's session downloads the
// transactions, refunds and payouts lists as CSV and XLSX with the filters shown, columns in the
// session's language, phone numbers masked, money as integers; a list of several pages of the store
// whole and in order; above the maximum (lowered here to 250 rows by its setting) a localized
// problem, before any byte of a file.

const { stack, api, merchant } = useStack({ fund: 1_000_000, config: { DASHBOARD_EXPORT_MAX_ROWS: '250' } });
const tag = randomUUID().slice(0, 6);
let viewer: DashboardBrowser;
let viewerEmail: string;

async function download(browser: DashboardBrowser, query: string, lang = 'en') {
  const res = await fetch(`${stack.baseUrl}/dashboard/api/transactions/export?${query}`, {
    headers: {
      cookie: `dashboard_session=${browser.cookie}`,
      'accept-language': lang,
      'x-forwarded-for': browser.address,
    },
  });
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}

beforeAll(async () => {
  // Two payins (one refunded in part) and a payout: five rows in all with the refund.
  for (const n of [1, 2]) {
    const created = await api.post('/v1/direct/payin', {
      reference: `exp-${tag}-${n}`,
      customerName: 'Awa Koné',
      payin: { amount: 25_000, msisdn: '+2250500004321', provider: 'MTN', country: 'CI' },
      action: { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' },
      sandboxScenario: 'completed',
    });
    expect(created.status).toBe(201);
  }
  await eventually(
    () => api.get(`/v1/payin/exp-${tag}-1`),
    (r) => r.body.status === 'success',
  );
  const refund = await api.post(`/v1/payin/exp-${tag}-1/refund`, {
    amount: 5_000,
    reason: '=cmd|returned',
    externalReference: `rf-${tag}`,
  });
  expect(refund.status).toBe(201);
  const payout = await api.post('/v1/payout', {
    reference: `exp-${tag}-po`,
    amount: 5_000,
    msisdn: '+2250100009876',
    country: 'CI',
    customerName: 'Kofi Yao',
  });
  expect(payout.status).toBe(201);
  ({ browser: viewer, email: viewerEmail } = await signedInMember(stack, merchant.merchantId, 'viewer'));
});

it('exports the payins of the filters as CSV, columns in English, phones masked, amounts integers', async () => {
  const { res, bytes } = await download(viewer, 'list=transactions&format=csv&type=payin');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toMatch(/^text\/csv; charset=utf-8/);
  expect(res.headers.get('content-disposition')).toMatch(
    /^attachment; filename="?transactions-\d{4}-\d\d-\d\d\.csv"?$/,
  );
  const text = bytes.toString('utf8');
  expect(text.startsWith('\ufeff')).toBe(true);
  const [header, ...lines] = text.slice(1).trim().split('\n');
  expect(header).toBe(
    'Reference,Type,Status,Amount,Currency,Fee,Phone number,Operator,Why it failed,Created (UTC)',
  );
  const ours = lines.filter((l) => l.startsWith(`exp-${tag}-`));
  expect(ours).toHaveLength(2);
  expect(ours[0]).toMatch(
    new RegExp(`^exp-${tag}-2,payin,\\w+,25000,XOF,\\d+,\\+225 •• •• 43 21,MTN_CI,,20`),
  );
  // Newest first; no number in clear anywhere in the file.
  expect(ours[1]).toMatch(new RegExp(`^exp-${tag}-1,`));
  expect(text).not.toContain('0500004321');
});

it('exports the refunds in French (`;`, French columns) and quotes a cell a spreadsheet would run', async () => {
  const { res, bytes } = await download(viewer, 'list=refunds&format=csv', 'fr');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-disposition')).toMatch(/filename="?remboursements-/);
  const [header, ...lines] = bytes.toString('utf8').slice(1).trim().split('\n');
  expect(header).toBe(
    'Remboursement;Paiement remboursé;Montant;Devise;Frais;Motif;Statut;Cause de l’échec;Créé le (UTC)',
  );
  const ours = lines.filter((l) => l.includes(`exp-${tag}-1`));
  expect(ours).toHaveLength(1);
  expect(ours[0]).toMatch(new RegExp(`^rf_[^;]+;exp-${tag}-1;5000;XOF;\\d+;'=cmd\\|returned;`));
});

it('writes each export to the audit log: who took which list, in which format; a plain read is not', async () => {
  const audit = AuditLog.on(stack.mongo);
  const exports = async () =>
    (await audit.list(merchantOfScope(merchant.merchantId), { limit: 100 })).entries.filter(
      (e) => e.route === 'GET /transactions/export',
    );
  // Written after the answer: the tests before this one may still be landing theirs (a CSV export's
  // came after this one's first read on a loaded machine), so this waits for its own entry.
  const isThisExport = (e: AuditEntry) =>
    e.described?.params.list === 'refunds' && e.described.params.format === 'xlsx';
  expect((await exports()).some(isThisExport)).toBe(false);
  expect((await download(viewer, 'list=refunds&format=xlsx', 'fr')).res.status).toBe(200);
  const entry = (await eventually(exports, (e) => e.some(isThisExport))).find(isThisExport);
  expect(entry).toMatchObject({
    email: viewerEmail,
    action: 'GET /dashboard/api/transactions/export',
    outcome: 'allowed',
    described: { kind: 'list-exported', params: { list: 'refunds', format: 'xlsx' } },
  });
  const i18n = createInstance();
  await i18n.init({ lng: 'fr', resources: { en: { translation: en }, fr: { translation: fr } } });
  expect(auditActionText(entry!.described, i18n.t, 'fr')).toBe('Liste exportée (remboursements, XLSX)');
  // The search behind the list is a read like any other: not in the log.
  await fetch(`${stack.baseUrl}/dashboard/api/transactions/search?q=exp`, {
    headers: { cookie: `dashboard_session=${viewer.cookie}`, 'x-forwarded-for': viewer.address },
  });
  const all = (await audit.list(merchantOfScope(merchant.merchantId), { limit: 100 })).entries;
  expect(all.some((e) => e.target.endsWith('/transactions/search'))).toBe(false);
});

it('exports the payouts as XLSX, read back by a spreadsheet library', async () => {
  const { res, bytes } = await download(viewer, 'list=payouts&format=xlsx');
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe(
    'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
  );
  const book = new ExcelJS.Workbook();
  await book.xlsx.load(bytes as unknown as ArrayBuffer);
  const sheet = book.worksheets[0]!;
  const values = (n: number) => (sheet.getRow(n).values as unknown[]).slice(1);
  expect(values(1)).toEqual([
    'Reference',
    'Recipient',
    'Phone number',
    'Amount',
    'Currency',
    'Fee',
    'Status',
    'Why it failed',
    'Created (UTC)',
  ]);
  const rows = Array.from({ length: sheet.rowCount - 1 }, (_, i) => values(i + 2));
  const ours = rows.filter((r) => r[0] === `exp-${tag}-po`);
  expect(ours).toHaveLength(1);
  expect(ours[0]!.slice(0, 5)).toEqual([`exp-${tag}-po`, 'Kofi Yao', '+225 •• •• 98 76', 5000, 'XOF']);
});

describe('a merchant of 260 transactions (the store read 100 at a time)', () => {
  let member: DashboardBrowser;
  beforeAll(async () => {
    const big = await createTestMerchant(stack, 'Big shop');
    const now = Date.now();
    await seedHistory(stack.mongo, {
      merchantId: big.merchantId,
      count: 260,
      from: now - 3_600_000,
      to: now - 60_000,
      tag: `x${randomUUID().slice(0, 8)}`,
      pending: 0,
    });
    ({ browser: member } = await signedInMember(stack, big.merchantId, 'viewer'));
  });

  it('exports the 208 payins across pages, each once, newest first', async () => {
    const { res, bytes } = await download(member, 'list=transactions&format=csv&type=payin');
    expect(res.status).toBe(200);
    const rows = bytes.toString('utf8').slice(1).trim().split('\n').slice(1);
    expect(rows).toHaveLength(208);
    const refs = rows.map((r) => r.split(',')[0]!);
    expect(new Set(refs).size).toBe(208);
    const times = rows.map((r) => Date.parse(r.split(',').at(-1)!));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
  });

  it('above the maximum: a 422 problem in the session language, before any file', async () => {
    const en = await download(member, 'list=transactions&format=xlsx');
    expect(en.res.status).toBe(422);
    expect(en.res.headers.get('content-disposition')).toBeNull();
    const problem = JSON.parse(en.bytes.toString('utf8')) as { code: string; detail: string };
    expect(problem.code).toBe('EXPORT_TOO_LARGE');
    expect(problem.detail).toMatch(/^More than 250 rows match these filters: an export holds at most 250\./);
    const fr = JSON.parse((await download(member, 'list=transactions', 'fr')).bytes.toString('utf8')) as {
      title: string;
      detail: string;
    };
    expect(fr.title).toBe('Trop de lignes à exporter');
    expect(fr.detail).toMatch(/^Plus de 250 lignes correspondent/);
  });
});

it('refuses a bad query with a 400 naming the field, and a signed-out caller with a 401', async () => {
  const bad = await download(viewer, 'list=everything&format=pdf', 'fr');
  expect(bad.res.status).toBe(400);
  const body = JSON.parse(bad.bytes.toString('utf8')) as { errors: { path: string }[] };
  expect(body.errors.map((e) => e.path).sort()).toEqual(['format', 'list']);
  // A refunds list of payouts names no row: refused on `type`.
  const mixed = await download(viewer, 'list=refunds&type=payout');
  expect(mixed.res.status).toBe(400);
  const anonymous = await fetch(`${stack.baseUrl}/dashboard/api/transactions/export?list=transactions`);
  expect(anonymous.status).toBe(401);
});
