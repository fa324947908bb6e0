import { MomoApiError } from '../src/index';
import { client, stackAvailable } from './helpers';

// Payment links through the SDK, against the running stack: made, read, its QR code as bytes (SVG
// and PNG), listed, changed and deactivated.

const momo = client();
const describeStack = stackAvailable ? describe : describe.skip;

describeStack('payment links', () => {
  test('a link: created, read, its QR code in both formats, listed, changed, deactivated', async () => {
    const link = await momo.paymentLinks.create({
      title: 'Pagne wax 6 yards',
      amount: { type: 'open', min: 1_000, max: 50_000 },
      currency: 'XOF',
      countries: ['CI'],
      usage: 'reusable',
    });
    expect(link).toMatchObject({ status: 'active', currency: 'XOF', livemode: false });
    expect((await momo.paymentLinks.get(link.id)).url).toBe(link.url);

    const svg = await momo.paymentLinks.qr(link.id);
    expect(svg).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(svg).toString('utf8')).toMatch(/<svg[\s>]/);
    const png = await momo.paymentLinks.qr(link.id, { format: 'png' });
    // The PNG signature, intact: the bytes are not read as text.
    expect(Buffer.from(png.subarray(0, 8)).toString('hex')).toBe('89504e470d0a1a0a');

    const listed = await momo.paymentLinks.list({ limit: 100 });
    expect(listed.data.map((l) => l.id)).toContain(link.id);
    expect((await momo.paymentLinks.update(link.id, { title: 'Pagne wax' })).title).toBe('Pagne wax');
    expect((await momo.paymentLinks.deactivate(link.id)).status).toBe('inactive');

    const missing = await momo.paymentLinks.qr('pl_missing').catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(MomoApiError);
    expect((missing as MomoApiError).status).toBe(404);
  });
});
