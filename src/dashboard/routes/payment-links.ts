import type { Router } from 'express';
import { toTransactionRecord } from '../../contract/records/transaction-record';
import { negotiateLanguage } from '../../contract/i18n';
import { parseOr400 } from '../../api/validate';
import { newRouter, route } from '../../api/routing';
import type { PaymentLinkService } from '../../services/payment-link-service';
import {
  EXPORT_MAX_ROWS,
  exportRow,
  linkExportQuery,
  linkFileName,
  linkPaymentColumns,
} from '../data/export';
import { csv, tooLarge, xlsx } from './export';

/**
 * GET /dashboard/api/payment-links/:id/export?format=csv|xlsx: the payins under one of the
 * session's links (its mode's), as the transactions export writes them: phone numbers masked,
 * cells that a spreadsheet would run quoted. The rest of the page's calls go through the public API
 * door (/dashboard/api/v1/payment-links), which the route table guards and the audit log describes.
 */
export function paymentLinkRoutes(links: PaymentLinkService, maxRows = EXPORT_MAX_ROWS): Router {
  const router = newRouter('/dashboard/api');
  route(router, 'GET /dashboard/api/payment-links/:id/export', async (req, res) => {
    const lang = negotiateLanguage(req);
    const q = parseOr400(linkExportQuery, req.query, req);
    // The session's scope: another merchant's or the other mode's link is not found (404).
    const link = await links.get(req.merchantId!, req.params.id);
    // Counted first, so a refusal is a problem the page shows, never a file cut short.
    if ((await links.paymentCount(link)) > maxRows) throw tooLarge(maxRows);
    const rows = async function* () {
      for await (const tx of links.walkPayments(link))
        yield exportRow('transactions', toTransactionRecord(tx));
    };
    res.attachment(linkFileName(link.id, lang, q.format)).setHeader('Cache-Control', 'no-store');
    try {
      if (q.format === 'csv') await csv(res, linkPaymentColumns, lang, rows());
      else await xlsx(res, linkPaymentColumns, lang === 'fr' ? 'Paiements' : 'Payments', lang, rows());
    } catch (err) {
      // Once bytes are sent a problem cannot follow: the connection is cut, the file visibly incomplete.
      if (!res.headersSent) throw err;
      res.destroy(err instanceof Error ? err : undefined);
    }
  });
  return router;
}
