import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Router, Response } from 'express';
import { stringify } from 'csv-stringify';
import ExcelJS from 'exceljs';
import { parseOr400 } from '../../api/validate';
import { newRouter, route } from '../../api/routing';
import { negotiateLanguage, type Language } from '../../contract/i18n';
import { ApiProblem } from '../../contract/problems';
import { gatherMetadataParams } from '../../contract/schemas/transaction-search';
import type { TransactionSearch } from '../../services/transaction-search';
import {
  EXPORT_MAX_ROWS,
  exceeds,
  exportColumns,
  exportQuery,
  exportRow,
  fileName,
  headerOf,
  searchOf,
  walkExport,
  type Column,
} from '../data/export';

/**
 * GET /dashboard/api/transactions/export?list=transactions|refunds|payouts&format=csv|xlsx&<the
 * filters of GET /v1/transactions>: the list as a file, streamed page by page
 * (docs/decisions/dashboard/list-exports.md).
 */
export function exportRoutes(search: TransactionSearch, maxRows = EXPORT_MAX_ROWS): Router {
  const router = newRouter('/dashboard/api');
  route(router, 'GET /dashboard/api/transactions/export', async (req, res) => {
    const lang = negotiateLanguage(req);
    const q = parseOr400(exportQuery, gatherMetadataParams(req.query as Record<string, unknown>), req);
    const query = searchOf(q);
    const scope = req.merchantId!;
    // Counted first, so a refusal is a problem the page shows, never a file cut short that looks whole.
    if (await exceeds(search, scope, query, maxRows)) throw tooLarge(maxRows);
    const rows = async function* () {
      for await (const record of walkExport(search, scope, query)) yield exportRow(q.list, record);
    };
    res.attachment(fileName(q.list, lang, q.format)).setHeader('Cache-Control', 'no-store');
    try {
      if (q.format === 'csv') await csv(res, exportColumns[q.list], lang, rows());
      else
        await xlsx(
          res,
          exportColumns[q.list],
          fileName(q.list, lang, 'xlsx').replace(/-.*$/, ''),
          lang,
          rows(),
        );
    } catch (err) {
      // Once bytes are sent a problem cannot follow: the connection is cut, so the file is visibly incomplete.
      if (!res.headersSent) throw err;
      res.destroy(err instanceof Error ? err : undefined);
    }
  });
  return router;
}

/** The maximum named in the member's language, and what to do. */
export function tooLarge(max: number): ApiProblem {
  const n = (lang: Language) => new Intl.NumberFormat(lang).format(max);
  return new ApiProblem('EXPORT_TOO_LARGE', {
    detail: {
      en: `More than ${n('en')} rows match these filters: an export holds at most ${n('en')}. Narrow them (dates, status, operator) and export again.`,
      fr: `Plus de ${n('fr')} lignes correspondent à ces filtres : un export en contient au plus ${n('fr')}. Restreignez-les (dates, statut, opérateur) puis exportez à nouveau.`,
    },
  });
}

/**
 * UTF-8 with a byte-order mark, so spreadsheets read accents and masks; `;`-separated in French, the
 * list separator of French spreadsheet settings (a comma there would put each row in one cell).
 */
export async function csv(
  res: Response,
  columns: readonly Column[],
  lang: Language,
  rows: AsyncIterable<object>,
) {
  res.type('text/csv; charset=utf-8');
  await pipeline(
    Readable.from(rows),
    stringify({
      header: true,
      bom: true,
      delimiter: lang === 'fr' ? ';' : ',',
      columns: headerOf(columns, lang),
    }),
    res,
  );
}

/** The streaming writer: each row is committed (written out) as it comes, none kept. */
export async function xlsx(
  res: Response,
  columns: readonly Column[],
  sheetName: string,
  lang: Language,
  rows: AsyncIterable<object>,
) {
  res.type('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet');
  const book = new ExcelJS.stream.xlsx.WorkbookWriter({
    stream: res,
    useStyles: true,
    useSharedStrings: false,
  });
  const sheet = book.addWorksheet(sheetName);
  sheet.columns = columns.map((c) => ({
    key: c.key,
    header: c.title[lang],
    width: c.numeric ? 14 : 22,
    ...(c.numeric ? { style: { numFmt: '#,##0' } } : {}),
  }));
  for await (const row of rows) sheet.addRow(row).commit();
  sheet.commit();
  await book.commit();
}
