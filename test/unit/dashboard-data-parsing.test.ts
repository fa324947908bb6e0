import ExcelJS from 'exceljs';
import { keepBody, maskJson, maskPath, MAX_BODY_BYTES } from '../../src/request-log/mask';
import { itemOf, previewUpload } from '../../src/dashboard/data/bulk-upload';

// What the request log keeps of bodies, and how a spreadsheet's rows become bulk payout items.
describe('request log masking', () => {
  it('masks phone numbers, names, emails and secrets wherever they are', () => {
    const masked = maskJson({
      payin: { msisdn: '+2250700000001', amount: 5000 },
      customerName: 'Adjoua Kouamé',
      email: 'adjoua@example.ci',
      otp: '123456',
      apiClient: 'sk_test_abc',
      note: 'call +2250700000009 or write to yao@example.ci',
      items: [{ phoneNumber: '+237650000001', customerName: 'Yao' }],
    });
    expect(masked).toEqual({
      payin: { msisdn: '+225******0001', amount: 5000 },
      customerName: 'A***',
      email: 'a***@example.ci',
      otp: '[redacted]',
      apiClient: '[redacted]',
      note: 'call +225******0009 or write to y***@example.ci',
      items: [{ phoneNumber: '+237******0001', customerName: 'Y***' }],
    });
  });

  it('keeps JSON text masked, other text masked as free text, and cuts long bodies', () => {
    expect(keepBody('{"msisdn":"+2250700000001"}').text).toBe('{"msisdn":"+225******0001"}');
    expect(keepBody('not json +2250700000001').text).toBe('not json +225******0001');
    expect(keepBody(undefined)).toEqual({ text: null, truncated: false });
    const big = keepBody({
      items: Array.from({ length: 2_000 }, (_, i) => ({ reference: `r-${i}`, msisdn: '+2250700000001' })),
    });
    expect(big.truncated).toBe(true);
    expect(Buffer.byteLength(big.text!)).toBeLessThanOrEqual(MAX_BODY_BYTES);
    expect(big.text).not.toContain('2250700000001');
  });

  it('keeps only loggable query values in a path', () => {
    expect(maskPath('/v1/statements/st_1/download?signature=abc&expires=1')).toBe(
      '/v1/statements/st_1/download?signature=[redacted]&expires=1',
    );
    expect(maskPath('/v1/providers/recipient?msisdn=%2B2250700000001')).not.toContain('2250700000001');
  });
});

describe('bulk upload rows', () => {
  it('reads cells as the bulk item: numbers, upper-case codes, metadata columns, empty cells absent', () => {
    expect(
      itemOf({
        reference: ' r-1 ',
        amount: '10 000',
        msisdn: 2250700000002,
        country: 'ci',
        provider: '',
        'metadata.team': 'A',
      }),
    ).toEqual({
      reference: 'r-1',
      amount: 10000,
      msisdn: '+2250700000002',
      country: 'CI',
      metadata: { team: 'A' },
    });
  });

  it('checks every row with the bulk check, in the asked language, with totals of the valid ones', async () => {
    const csv = Buffer.from(
      '\uFEFFreference,amount,msisdn,country\na,100,+2250500020001,CI\nb,abc,+2250500020002,CI\n,,,\n',
    );
    const fr = await previewUpload(csv, 'text/csv', 'fr');
    expect([fr.valid, fr.invalid]).toEqual([1, 1]);
    // A refused row keeps what identifies it, and its amount's message says what was read (issue 44 §1:
    // it showed "—" everywhere and "Must be a number, not a string").
    expect(fr.rows[1]).toEqual({
      line: 3,
      item: null,
      cells: { reference: 'b', msisdn: '+2250500020002', amount: 'abc' },
      errors: [
        {
          field: 'amount',
          message: "« abc » n'est pas un montant : écrivez le nombre seul, par exemple 10000 ou 10 000.",
        },
      ],
    });
    expect(fr.rows[0]!.cells).toBeUndefined();
    expect(fr.totals).toEqual([{ currency: 'XOF', count: 1, amount: 100 }]);
  });

  it('reads the first sheet of an XLSX file', async () => {
    const wb = new ExcelJS.Workbook();
    const ws = wb.addWorksheet('a');
    ws.addRow(['reference', 'amount', 'msisdn', 'country', 'customerName']);
    ws.addRow(['x', 10, '+237650000001', 'CM', { richText: [{ text: 'Yao ' }, { text: 'K' }] }]);
    const p = await previewUpload(
      Buffer.from(await wb.xlsx.writeBuffer()),
      'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
      'en',
    );
    expect(p.rows[0]!.line).toBe(2);
    expect(p.rows[0]!.item ?? p.rows[0]!.errors).toMatchObject({ reference: 'x', customerName: 'Yao K' });
  });
});
