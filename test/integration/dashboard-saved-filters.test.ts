import { useStack } from '../helpers/use-stack';
import { eventually } from '../helpers/http';
import { signedInMember, type DashboardBrowser } from '../helpers/dashboard';
import { SAVED_FILTERS_PER_LIST } from '../../src/dashboard/data/saved-filters';

// Saved filters (issue 44 §2) over the real servers: a member saves a list's filters under a name,
// reads them back by name and removes them; they are the member's own (a colleague neither sees
// nor removes them); a name is used once per list, a list keeps at most 20, bad values are a 400
// on their field in the member's language; the audit log names the list, not the name.

const { stack, merchant } = useStack();
let viewer: DashboardBrowser;
let colleague: DashboardBrowser;

beforeAll(async () => {
  ({ browser: viewer } = await signedInMember(stack, merchant.merchantId, 'viewer'));
  ({ browser: colleague } = await signedInMember(stack, merchant.merchantId, 'support'));
});

const failedMtn = {
  type: 'payin',
  status: 'failed',
  provider: 'MTN_CI',
  from: '2026-11-01',
  to: '2026-11-30',
};

it('saves filters under a name, lists them by name, applies none of another member, removes them', async () => {
  const saved = await viewer.post('/dashboard/api/saved-filters', {
    list: 'transactions',
    name: '  MTN failures, November ',
    filters: failedMtn,
  });
  expect(saved.status).toBe(201);
  expect(saved.body).toMatchObject({
    id: expect.stringMatching(/^sf_/),
    list: 'transactions',
    name: 'MTN failures, November',
    filters: failedMtn,
  });
  expect(
    (
      await viewer.post('/dashboard/api/saved-filters', {
        list: 'transactions',
        name: 'All payouts',
        filters: { type: 'payout' },
      })
    ).status,
  ).toBe(201);
  // Another list's names are its own.
  expect(
    (await viewer.post('/dashboard/api/saved-filters', { list: 'refunds', name: 'All payouts', filters: {} }))
      .status,
  ).toBe(201);
  const mine = await viewer.get('/dashboard/api/saved-filters?list=transactions');
  expect(mine.status).toBe(200);
  expect(mine.body.data.map((f: { name: string }) => f.name)).toEqual([
    'All payouts',
    'MTN failures, November',
  ]);
  expect((await colleague.get('/dashboard/api/saved-filters?list=transactions')).body.data).toEqual([]);

  const id = saved.body.id as string;
  const foreign = await colleague.request('DELETE', `/dashboard/api/saved-filters/${id}`);
  expect(foreign.status).toBe(404);
  expect(foreign.body.code).toBe('SAVED_FILTER_NOT_FOUND');
  expect((await viewer.request('DELETE', `/dashboard/api/saved-filters/${id}`)).status).toBe(204);
  expect((await viewer.request('DELETE', `/dashboard/api/saved-filters/${id}`)).status).toBe(404);
  expect((await viewer.get('/dashboard/api/saved-filters?list=transactions')).body.data).toHaveLength(1);
});

it('a name once per list (409 on `name`, in French), at most 20 per list, bad values on their field', async () => {
  const body = { list: 'payouts', name: 'Dup', filters: { status: 'failed' } };
  expect((await colleague.post('/dashboard/api/saved-filters', body)).status).toBe(201);
  const twin = await colleague.post('/dashboard/api/saved-filters', body, { 'accept-language': 'fr' });
  expect(twin.status).toBe(409);
  expect(twin.body).toMatchObject({ code: 'SAVED_FILTER_NAME_TAKEN', title: 'Nom déjà utilisé' });
  expect(twin.body.errors).toEqual([{ path: 'name', message: expect.stringContaining('ce nom') }]);

  for (let i = 1; i < SAVED_FILTERS_PER_LIST; i++)
    expect((await colleague.post('/dashboard/api/saved-filters', { ...body, name: `F${i}` })).status).toBe(
      201,
    );
  const full = await colleague.post('/dashboard/api/saved-filters', { ...body, name: 'One more' });
  expect(full.status).toBe(409);
  expect(full.body.code).toBe('SAVED_FILTERS_FULL');
  expect((await colleague.get('/dashboard/api/saved-filters?list=payouts')).body.data).toHaveLength(
    SAVED_FILTERS_PER_LIST,
  );

  const bad = await colleague.post(
    '/dashboard/api/saved-filters',
    { list: 'everything', name: '', filters: { status: 'lost', from: '28/11/2026', owner: 'x' } },
    { 'accept-language': 'fr' },
  );
  expect(bad.status).toBe(400);
  expect(bad.body.title).toBe('Requête invalide');
  expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
    'filters.from',
    'filters.owner',
    'filters.status',
    'list',
    'name',
  ]);
  expect((await colleague.get('/dashboard/api/saved-filters')).status).toBe(400);
});

it('audits saving and removing by the list, never the name', async () => {
  const { browser: owner } = await signedInMember(stack, merchant.merchantId, 'owner');
  const entries = await eventually(
    () => owner.get('/dashboard/api/audit?limit=100'),
    (r) =>
      (r.body.data as { described?: { kind: string } }[]).some(
        (e) => e.described?.kind === 'saved-filter-deleted',
      ),
  );
  const created = (entries.body.data as { described?: { kind: string; params: unknown } }[]).filter(
    (e) => e.described?.kind === 'saved-filter-created',
  );
  expect(created.map((e) => e.described!.params)).toContainEqual({ list: 'transactions' });
  expect(JSON.stringify(entries.body.data)).not.toContain('MTN failures');
});
