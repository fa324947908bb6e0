// The chaos suite's transactions (test/integration/chaos.test.ts): 80 % payins of every kind the
// sandbox knows, 20 % payouts, and the status each payin must end in.

export type PayinKind =
  'completed' | 'failed' | 'pending' | 'corrected' | 'no-callback' | 'slow' | 'orange' | 'wave';
export type Planned =
  | { kind: 'payin'; variant: PayinKind; reference: string; amount: number }
  | { kind: 'payout'; variant: 'completed' | 'failed'; reference: string; amount: number };

export const payinVariants: PayinKind[] = [
  'completed',
  'failed',
  'pending',
  'corrected',
  'no-callback',
  'slow',
  'orange',
  'wave',
];
export const expectedPayinStatus: Record<PayinKind, string> = {
  completed: 'success',
  failed: 'failed',
  pending: 'expired',
  corrected: 'success',
  'no-callback': 'success',
  slow: 'success',
  orange: 'success',
  wave: 'success',
};

/** `count` transactions: every fifth a payout (one in two of those failing), the rest payins in turn. */
export function planTransactions(count: number): Planned[] {
  return Array.from({ length: count }, (_, i) => {
    const amount = 1_000 + ((i * 7_919) % 49_000);
    const reference = `chaos-${i}`;
    if (i % 5 === 4)
      return { kind: 'payout', variant: i % 10 === 9 ? 'failed' : 'completed', reference, amount };
    return {
      kind: 'payin',
      variant: payinVariants[(i - Math.floor(i / 5)) % payinVariants.length]!,
      reference,
      amount,
    };
  });
}

/** The operator a planned payin goes to (all in CI). */
export function payinOperator(p: Extract<Planned, { kind: 'payin' }>): 'ORANGE' | 'WAVE' | 'MTN' {
  return p.variant === 'orange' ? 'ORANGE' : p.variant === 'wave' ? 'WAVE' : 'MTN';
}

export function payinBody(p: Extract<Planned, { kind: 'payin' }>) {
  const msisdn = {
    completed: '+2250500001001',
    failed: '+2250500001002',
    pending: '+2250500001003',
    corrected: '+2250500009902',
    'no-callback': '+2250500009903',
    slow: '+2250500009904',
    orange: '+2250700001001',
    wave: '+2250100001001',
  }[p.variant];
  const provider = payinOperator(p);
  return {
    reference: p.reference,
    sandboxScenario: p.variant === 'failed' ? 'failed' : p.variant === 'pending' ? 'pending' : 'completed',
    customerName: 'Awa Koné',
    payin: {
      amount: p.amount,
      msisdn,
      provider,
      country: 'CI',
      ...(p.variant === 'orange' ? { otp: '1234' } : {}),
    },
    action: { successUrl: 'https://merchant.example/ok', failureUrl: 'https://merchant.example/ko' },
  };
}

export function payoutBody(p: Extract<Planned, { kind: 'payout' }>) {
  return {
    reference: p.reference,
    sandboxScenario: p.variant,
    customerName: 'Kouassi Yao',
    payout: { amount: p.amount, msisdn: '+2250500002001', provider: 'MTN', country: 'CI' },
  };
}
