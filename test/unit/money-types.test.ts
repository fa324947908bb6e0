import path from 'node:path';
import ts from 'typescript';
import { toMajor, toMinor, type MajorAmount, type MinorAmount } from '../../src/domain/money';
import { computeFee, splitFee } from '../../src/domain/fees';
import type { TransferRequest } from '../../src/ledger';
import type { fundFromSandbox } from '../../src/ledger/postings';
import type { Transaction } from '../../src/domain/transaction';
import type { DirectPayinRequest } from '../../src/contract/schemas/payin';
import type { RefundRequest } from '../../src/contract/schemas/refund';

// Minor and major units are distinct types: every `@ts-expect-error` below marks a unit mix-up the
// compiler must refuse. tsc checks this file with the rest (tsconfig includes test/), and the test
// at the bottom compiles it too, so a brand that stops refusing (an unused directive) fails here.

const major: MajorAmount = toMajor(1250, 'USD');
const minor: MinorAmount = toMinor(12.5, 'USD');

export const mixUps = (
  ledgerFund: typeof fundFromSandbox,
  payin: DirectPayinRequest,
  refund: RefundRequest,
) => {
  // @ts-expect-error a MajorAmount is not a MinorAmount
  const asMinor: MinorAmount = major;
  // @ts-expect-error a MinorAmount is not a MajorAmount
  const asMajor: MajorAmount = minor;
  // @ts-expect-error toMinor takes major units only
  toMinor(minor, 'USD');
  // @ts-expect-error toMajor takes minor units only
  toMajor(major, 'USD');
  // @ts-expect-error the ledger moves minor units
  const transfer: Pick<TransferRequest, 'amount'> = { amount: major };
  // @ts-expect-error fees are computed on minor units
  computeFee('payin', null, null, major, 'USD');
  // @ts-expect-error fees are split in minor units
  splitFee('payout', major, minor, true);
  // @ts-expect-error a stored transaction holds minor units
  const amounts: Pick<Transaction, 'amount'> = { amount: major };
  // @ts-expect-error a posting moves minor units
  void ledgerFund(null as never, { merchantId: 'm', currency: 'USD', amount: major, reason: 'r' });
  // @ts-expect-error a merchant's request is in major units: toMinor first
  computeFee('payin', null, null, payin.payin.amount, 'XOF');
  // @ts-expect-error a refund request is in major units: toMinor first
  const refunded: Pick<Transaction, 'amount'> = { amount: refund.amount! };
  // The conversions are the way across.
  const converted: MinorAmount = toMinor(major, 'USD');
  const shown: MajorAmount = toMajor(converted, 'USD');
  return { asMinor, asMajor, transfer, amounts, shown, refunded };
};

describe('money types', () => {
  it('converts between units (the only way across)', () => {
    expect(toMinor(12.5, 'USD')).toBe(1250);
    expect(toMajor(1250, 'USD')).toBe(12.5);
    expect(toMinor(500, 'XOF')).toBe(500);
    expect(computeFee('payin', null, null, toMinor(100, 'USD'), 'USD')).toBe(150);
  });

  it('refuses every unit mix-up above at compile time', () => {
    const configFile = path.resolve(__dirname, '../../tsconfig.json');
    const { config } = ts.readConfigFile(configFile, (f) => ts.sys.readFile(f));
    const parsed = ts.parseJsonConfigFileContent(config, ts.sys, path.dirname(configFile));
    const program = ts.createProgram([__filename], { ...parsed.options, noEmit: true });
    const problems = ts
      .getPreEmitDiagnostics(program, program.getSourceFile(__filename))
      .map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'));
    // An unused @ts-expect-error is reported here: the mix-up it marks compiled.
    expect(problems).toEqual([]);
  }, 60_000);
});
