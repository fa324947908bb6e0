// The end of a fault run's settle loop, shared by the simulator's and pawaPay's suites: done when
// nothing is open and the books agree (or have disagreed for SETTLE_MS), or the budget is spent;
// meanwhile a progress line every fifth round.

export interface SettleRound {
  round: number;
  /** No fault window or late operator move is still to come. */
  quiet: boolean;
  open: Array<{ plan: { reference: string }; ours: { status: string | null } }>;
  divergences: number;
  stableSince: number;
  settleMs: number;
  budgetEnd: number;
  /** What is still to come from the operator, for the progress line. */
  toCome: string;
  progress: (what: string) => void;
}

/** True when the loop should stop. */
export function settled(r: SettleRound): boolean {
  if (r.quiet && r.open.length === 0 && (r.divergences === 0 || Date.now() - r.stableSince >= r.settleMs))
    return true;
  if (Date.now() > r.budgetEnd) {
    r.progress(`budget spent: ${r.open.length} not final, reported as divergences`);
    return true;
  }
  if (r.round % 5 === 0)
    r.progress(
      `${r.open.length} open (${r.open
        .slice(0, 6)
        .map((o) => `${o.plan.reference}=${o.ours.status}`)
        .join(', ')}), ${r.divergences} divergences, ${r.toCome}`,
    );
  return false;
}
