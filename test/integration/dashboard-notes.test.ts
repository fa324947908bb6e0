import { randomUUID } from 'node:crypto';
import { useStack } from '../helpers/use-stack';
import { eventually } from '../helpers/http';
import { createTestMerchant } from '../helpers/merchants';
import { signedInMember, type DashboardBrowser } from '../helpers/dashboard';
import { NOTE_MAX_CHARS, NOTES_PER_TRANSACTION } from '../../src/dashboard/data/notes';

// Notes on a transaction (issue 44 §2) over the real servers: a support member adds a note to a
// payin and to its refund, the timeline shows them with author and time, newest first; a viewer is
// refused; a note too long or empty is a 400 on `text` in the member's language; another merchant's
// transaction is unknown; there is no way to change or remove one; the audit log names the
// transaction, never the text.

const { stack, api, merchant } = useStack({ fund: 1_000_000 });
let support: DashboardBrowser;
let payinId: string;
let refundId: string;

beforeAll(async () => {
  const reference = `note-${randomUUID().slice(0, 8)}`;
  const created = await api.post('/v1/direct/payin', {
    reference,
    customerName: 'Awa Koné',
    payin: { amount: 25_000, msisdn: '+2250500004321', provider: 'MTN', country: 'CI' },
    action: { successUrl: 'https://shop.example/ok', failureUrl: 'https://shop.example/ko' },
    sandboxScenario: 'completed',
  });
  expect(created.status).toBe(201);
  const paid = await eventually(
    () => api.get(`/v1/payin/${reference}`),
    (r) => r.body.status === 'success',
  );
  payinId = paid.body.id as string;
  const refund = await api.post(`/v1/payin/${reference}/refund`, {
    amount: 5_000,
    reason: 'returned',
    externalReference: `rf-${reference}`,
  });
  expect(refund.status).toBe(201);
  refundId = refund.body.reference as string;
  ({ browser: support } = await signedInMember(stack, merchant.merchantId, 'support'));
});

const notesPath = (id: string) => `/dashboard/api/transactions/${id}/notes`;

it('adds notes to a payin and a refund, shown in their timelines with author and time, newest first', async () => {
  const first = await support.post(notesPath(payinId), { text: '  Customer called: asked for a receipt.  ' });
  expect(first.status).toBe(201);
  expect(first.body).toMatchObject({
    id: expect.stringMatching(/^note_/),
    text: 'Customer called: asked for a receipt.',
    author: { name: 'A support' },
  });
  const second = await support.post(notesPath(payinId), { text: 'Receipt sent by e-mail.' });
  expect(second.status).toBe(201);
  const timeline = await support.get(`/dashboard/api/transactions/${payinId}/timeline`);
  expect(timeline.status).toBe(200);
  expect(timeline.body.notes.map((n: { text: string }) => n.text)).toEqual([
    'Receipt sent by e-mail.',
    'Customer called: asked for a receipt.',
  ]);
  expect(Date.parse(timeline.body.notes[0].at)).toBeGreaterThanOrEqual(Date.parse(timeline.body.notes[1].at));

  expect((await support.post(notesPath(refundId), { text: 'Refund agreed by phone.' })).status).toBe(201);
  const ofRefund = await support.get(`/dashboard/api/transactions/${refundId}/timeline`);
  expect(ofRefund.body.notes).toHaveLength(1);
  // A viewer reads the notes, and may not write one.
  const { browser: viewer } = await signedInMember(stack, merchant.merchantId, 'viewer');
  expect((await viewer.get(`/dashboard/api/transactions/${payinId}/timeline`)).body.notes).toHaveLength(2);
  const refused = await viewer.post(notesPath(payinId), { text: 'Not mine to write.' });
  expect(refused.status).toBe(403);
  expect(refused.body.code).toBe('ROLE_FORBIDDEN');
});

it('refuses an empty or too long note on `text`, in French, and an unknown or foreign transaction', async () => {
  const long = await support.post(
    notesPath(payinId),
    { text: 'x'.repeat(NOTE_MAX_CHARS + 1) },
    { 'accept-language': 'fr' },
  );
  expect(long.status).toBe(400);
  expect(long.body.title).toBe('Requête invalide');
  expect(long.body.errors).toEqual([{ path: 'text', message: expect.stringMatching(/1000|1 000/) }]);
  expect((await support.post(notesPath(payinId), { text: '   ' })).body.errors[0].path).toBe('text');
  expect((await support.post(notesPath(payinId), { text: 'ok', pinned: true })).status).toBe(400);
  expect((await support.post(notesPath(payinId), { text: 'x'.repeat(NOTE_MAX_CHARS) })).status).toBe(201);

  const other = await createTestMerchant(stack, 'Other shop');
  const { browser: stranger } = await signedInMember(stack, other.merchantId, 'owner');
  const foreign = await stranger.post(notesPath(payinId), { text: 'Peeking.' });
  expect(foreign.status).toBe(404);
  expect(foreign.body.code).toBe('TRANSACTION_NOT_FOUND');
  expect((await support.post(notesPath('pr_nothingHere'), { text: 'x' })).status).toBe(404);
  expect((await support.post(notesPath('../etc'), { text: 'x' })).status).toBe(404);
});

it('is append-only: no route changes or removes a note', async () => {
  const note = (await support.get(`/dashboard/api/transactions/${payinId}/timeline`)).body.notes[0];
  for (const method of ['PATCH', 'PUT', 'DELETE']) {
    const res = await support.request(method, `${notesPath(payinId)}/${note.id}`, { text: 'changed' });
    expect(res.status).toBe(404);
    const onList = await support.request(method, notesPath(payinId), { text: 'changed' });
    expect(onList.status).toBe(405);
  }
});

it('audits each note by the transaction it is on, never by its text', async () => {
  const { browser: owner } = await signedInMember(stack, merchant.merchantId, 'owner');
  const entries = await eventually(
    () => owner.get('/dashboard/api/audit?limit=100'),
    (r) =>
      (r.body.data as { described?: { kind: string } }[]).filter((e) => e.described?.kind === 'note')
        .length >= 4,
  );
  const notes = (
    entries.body.data as { described?: { kind: string; params: unknown }; outcome: string }[]
  ).filter((e) => e.described?.kind === 'note');
  expect(notes.map((e) => e.described!.params)).toContainEqual({ reference: payinId });
  expect(notes.map((e) => e.described!.params)).toContainEqual({ reference: refundId });
  const all = JSON.stringify(entries.body.data);
  expect(all).not.toContain('Receipt sent');
  expect(all).not.toContain('Not mine to write');
  const csv = await owner.get('/dashboard/api/audit/export');
  expect(String(csv.body)).not.toContain('Receipt sent');
});

it('keeps at most 100 notes on a transaction (409, in French), every one in the timeline', async () => {
  const reference = `notes-${randomUUID().slice(0, 8)}`;
  const created = await api.post('/v1/payout', {
    reference,
    amount: 500,
    msisdn: '+2250100009876',
    country: 'CI',
    customerName: 'Kofi Yao',
  });
  expect(created.status).toBe(201);
  const payoutId = created.body.id as string;
  for (let i = 1; i <= NOTES_PER_TRANSACTION; i++)
    expect((await support.post(notesPath(payoutId), { text: `Note ${i}` })).status).toBe(201);
  const full = await support.post(notesPath(payoutId), { text: 'One more' }, { 'accept-language': 'fr' });
  expect(full.status).toBe(409);
  expect(full.body).toMatchObject({
    code: 'NOTES_LIMIT_REACHED',
    title: 'Trop de notes sur cette transaction',
  });
  const timeline = await support.get(`/dashboard/api/transactions/${payoutId}/timeline`);
  expect(timeline.body.notes).toHaveLength(NOTES_PER_TRANSACTION);
  expect(timeline.body.notes[0].text).toBe(`Note ${NOTES_PER_TRANSACTION}`);
});
