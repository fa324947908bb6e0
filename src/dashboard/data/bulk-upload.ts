import { parse } from 'csv-parse/sync';
import ExcelJS from 'exceljs';
import { parseBatchItem, type BatchItemInput } from '../../contract/schemas/payout-batch';
import type { Language } from '../../contract/i18n';
import { currencyByCountry } from '../../domain/operators';
import { fieldMessages } from '../../contract/field-messages';

// The bulk payout page's preview (docs/bulk-payouts.md, From a spreadsheet): a CSV or XLSX file,
// one payout per row, each row checked by the very check POST /v1/payouts/bulk runs on its items
// (parseBatchItem), so what the preview accepts is what the batch accepts. Nothing is sent.

export const MAX_UPLOAD_BYTES = 1024 * 1024;
export const MAX_UPLOAD_ROWS = 1_000;
export const CSV_TYPES = ['text/csv', 'application/csv', 'text/plain'];
export const XLSX_TYPE = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** The columns a file may have; `metadata.<key>` columns become metadata pairs. */
export const uploadColumns = [
  'reference',
  'amount',
  'msisdn',
  'country',
  'customerName',
  'provider',
  'accountId',
  'sandboxScenario',
] as const;

export class UploadUnreadable extends Error {}

type Untagged<T> = T extends unknown ? Omit<T, 'shape'> : never;
export type BatchItemRequest = Untagged<BatchItemInput>;

export interface PreviewRow {
  /** The row's line in the file (the header is line 1). */
  line: number;
  /** What POST /v1/payouts/bulk takes as the row's item (without the parser's `shape` tag). */
  item: BatchItemRequest | null;
  /** A refused row's cells as the file has them, so the page shows which row it is (absent when valid). */
  cells?: { reference?: string; msisdn?: string; amount?: string; customerName?: string };
  errors: { field: string; message: string }[];
}

/** What the page shows of a refused row: the identifying cells as written (trimmed, short). */
function shownCells(cells: Cells): NonNullable<PreviewRow['cells']> {
  const shown: NonNullable<PreviewRow['cells']> = {};
  for (const name of ['reference', 'msisdn', 'amount', 'customerName'] as const) {
    const value = String(cells[name] ?? '').trim();
    if (value) shown[name] = value.slice(0, 100);
  }
  return shown;
}

export interface Preview {
  rows: PreviewRow[];
  valid: number;
  invalid: number;
  /** Valid rows only, per currency of their country: count and sum of amounts (major units). */
  totals: { currency: string; count: number; amount: number }[];
}

type Cells = Record<string, string | number>;

/** A row's cells as the item POST /v1/payouts/bulk takes: empty cells absent, numbers as numbers. */
export function itemOf(cells: Cells): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  const metadata: Record<string, string> = {};
  for (const [rawName, rawValue] of Object.entries(cells)) {
    const name = rawName.trim();
    const value = typeof rawValue === 'string' ? rawValue.trim() : rawValue;
    if (name === '' || value === '') continue;
    if (name.startsWith('metadata.')) metadata[name.slice('metadata.'.length)] = String(value);
    else if (name === 'amount') {
      // "10 000" and "10000" both read as 10000; anything else is left for the schema to refuse.
      const text = String(value).replace(/[\s\u00a0\u202f]/g, '');
      item.amount = /^-?\d+(\.\d+)?$/.test(text) ? Number(text) : text;
    } else if (name === 'msisdn') {
      // A spreadsheet stores +2250700000002 as the number 2250700000002: its plus comes back.
      const text = String(value).replace(/[\s.-]/g, '');
      item.msisdn = typeof value === 'number' && !text.startsWith('+') ? `+${text}` : text;
    } else if (name === 'country' || name === 'provider') item[name] = String(value).toUpperCase();
    else item[name] = String(value);
  }
  if (Object.keys(metadata).length > 0) item.metadata = metadata;
  return item;
}

function csvRows(body: Buffer): Cells[] {
  const text = body.toString('utf8').replace(/^\uFEFF/, '');
  const firstLine = text.slice(0, text.indexOf('\n') >>> 0);
  // Spreadsheets in French locales save with semicolons.
  const delimiter = (firstLine.match(/;/g)?.length ?? 0) > (firstLine.match(/,/g)?.length ?? 0) ? ';' : ',';
  try {
    return parse<Cells>(text, {
      columns: true,
      delimiter,
      skip_empty_lines: true,
      relax_column_count: true,
      trim: true,
      max_record_size: 64 * 1024,
    });
  } catch {
    throw new UploadUnreadable();
  }
}

function cellValue(v: ExcelJS.CellValue): string | number {
  if (v === null || v === undefined) return '';
  if (typeof v === 'number' || typeof v === 'string') return v;
  if (typeof v === 'boolean') return String(v);
  if (v instanceof Date) return v.toISOString();
  if ('richText' in v) return v.richText.map((t) => t.text).join('');
  if ('result' in v) return cellValue(v.result ?? '');
  if ('text' in v) return String(v.text);
  return '';
}

async function xlsxRows(body: Buffer): Promise<Cells[]> {
  const workbook = new ExcelJS.Workbook();
  try {
    await workbook.xlsx.load(body as unknown as ArrayBuffer);
  } catch {
    throw new UploadUnreadable();
  }
  const sheet = workbook.worksheets[0];
  if (!sheet) throw new UploadUnreadable();
  const header: string[] = [];
  sheet.getRow(1).eachCell((cell, col) => (header[col] = String(cellValue(cell.value))));
  const rows: Cells[] = [];
  for (let r = 2; r <= sheet.rowCount; r++) {
    const cells: Cells = {};
    sheet.getRow(r).eachCell((cell, col) => {
      if (header[col]) cells[header[col]] = cellValue(cell.value);
    });
    rows.push(cells);
  }
  return rows;
}

/** Parses the file and checks every row; throws UploadUnreadable for a file that is not one. */
export async function previewUpload(body: Buffer, contentType: string, lang: Language): Promise<Preview> {
  const isXlsx = contentType.startsWith(XLSX_TYPE);
  const raw = isXlsx ? await xlsxRows(body) : csvRows(body);
  if (raw.length > MAX_UPLOAD_ROWS) throw new UploadUnreadable();
  const columns = new Set(raw.flatMap((r) => Object.keys(r)));
  if (!columns.has('reference') || !columns.has('amount')) throw new UploadUnreadable();
  const rows: PreviewRow[] = [];
  const totals = new Map<string, { currency: string; count: number; amount: number }>();
  const seen = new Set<string>();
  raw.forEach((cells, i) => {
    // Blank rows (an XLSX often keeps some at its end) are not payouts.
    if (Object.values(cells).every((v) => String(v).trim() === '')) return;
    const line = i + 2;
    const item$ = itemOf(cells);
    const parsed = parseBatchItem(item$);
    if ('errors' in parsed) {
      const shown = shownCells(cells);
      rows.push({
        line,
        item: null,
        cells: shown,
        errors: parsed.errors.map((e) => ({
          field: e.path,
          // The schema's "a number, not a string" says nothing of the cell: this says what it read.
          message:
            e.path === 'amount' && typeof item$.amount === 'string'
              ? fieldMessages.cellNotAnAmount(shown.amount ?? item$.amount)[lang]
              : typeof e.message === 'string'
                ? e.message
                : e.message[lang],
        })),
      });
      return;
    }
    const item = parsed.item;
    // Two rows with one reference: the second would be refused by the batch as a duplicate.
    if (seen.has(item.reference)) {
      rows.push({
        line,
        item: null,
        cells: shownCells(cells),
        errors: [{ field: 'reference', message: fieldMessages.duplicateRowReference[lang] }],
      });
      return;
    }
    seen.add(item.reference);
    // The page posts the item as is: the batch refuses the parser's `shape` tag as an unknown field.
    const { shape: _shape, ...request } = item;
    rows.push({ line, item: request, errors: [] });
    const currency = currencyByCountry[item.country];
    const total = totals.get(currency) ?? { currency, count: 0, amount: 0 };
    total.count++;
    total.amount += item.amount;
    totals.set(currency, total);
  });
  const valid = rows.filter((r) => r.item).length;
  return { rows, valid, invalid: rows.length - valid, totals: [...totals.values()] };
}
