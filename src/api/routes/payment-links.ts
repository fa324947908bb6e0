import type { Request, Router } from 'express';
import QRCode from 'qrcode';
import {
  createPaymentLinkRequest,
  listPaymentLinkPaymentsQuery,
  listPaymentLinksQuery,
  paymentLinkQrQuery,
  updatePaymentLinkRequest,
} from '../../contract/schemas/payment-links';
import { toTransactionRecord } from '../../contract/records/transaction-record';
import type { PaymentLinkService } from '../../services/payment-link-service';
import { decodeNewestFirst as before, encodeNewestFirst } from '../cursor';
import { parseOr400 } from '../validate';
import { newRouter, route } from '../routing';

// The merchant's payment links (docs/payment-links.md): create, list, read, change, deactivate,
// the QR code of a link and the payins opened under it.

const originOf = (req: Request) => `${req.protocol}://${req.get('host')}`;

export function paymentLinkRoutes(links: PaymentLinkService): Router {
  const router = newRouter();

  route(router, 'POST /v1/payment-links', async (req, res) => {
    const body = parseOr400(createPaymentLinkRequest, req.body ?? {}, req);
    const link = await links.create(req.merchantId!, body);
    res.status(201).json(await links.record(link, originOf(req)));
  });

  route(router, 'GET /v1/payment-links', async (req, res) => {
    const q = parseOr400(listPaymentLinksQuery, req.query, req);
    const page = await links.list(req.merchantId!, { limit: q.limit, before: before(q.cursor) });
    const last = page.links[page.links.length - 1];
    res.json({
      data: await Promise.all(page.links.map((l) => links.record(l, originOf(req)))),
      nextCursor: page.more && last ? encodeNewestFirst(last) : null,
    });
  });

  route(router, 'GET /v1/payment-links/:id', async (req, res) => {
    const link = await links.get(req.merchantId!, req.params.id);
    res.json(await links.record(link, originOf(req)));
  });

  route(router, 'PATCH /v1/payment-links/:id', async (req, res) => {
    const body = parseOr400(updatePaymentLinkRequest, req.body ?? {}, req);
    const link = await links.update(req.merchantId!, req.params.id, body);
    res.json(await links.record(link, originOf(req)));
  });

  route(router, 'POST /v1/payment-links/:id/deactivate', async (req, res) => {
    const link = await links.deactivate(req.merchantId!, req.params.id);
    res.json(await links.record(link, originOf(req)));
  });

  // The QR code of the link's URL, for a counter or a poster. Error correction M: it survives a
  // crease or a smudge and stays small enough to print at 2 cm.
  route(router, 'GET /v1/payment-links/:id/qr', async (req, res) => {
    const q = parseOr400(paymentLinkQrQuery, req.query, req);
    const link = await links.get(req.merchantId!, req.params.id);
    const url = links.url(link, originOf(req));
    const options = { errorCorrectionLevel: 'M' as const, margin: 2 };
    if (q.format === 'png') {
      res.type('image/png').send(await QRCode.toBuffer(url, { ...options, type: 'png', width: 512 }));
    } else {
      res.type('image/svg+xml').send(await QRCode.toString(url, { ...options, type: 'svg' }));
    }
  });

  route(router, 'GET /v1/payment-links/:id/payments', async (req, res) => {
    const q = parseOr400(listPaymentLinkPaymentsQuery, req.query, req);
    const link = await links.get(req.merchantId!, req.params.id);
    const { payments, next } = await links.payments(link, { limit: q.limit, before: before(q.cursor) });
    res.json({
      // Each payin's record, with what the page asked beside it (kept apart from the payin).
      data: payments.map(({ transaction, asked }) => ({
        ...toTransactionRecord(transaction),
        customerEmail: asked.email,
        customerAnswer: asked.answer,
      })),
      nextCursor: next ? encodeNewestFirst({ createdAt: next.createdAt, id: next._id }) : null,
    });
  });

  return router;
}
