import { listed, type IndexMember } from '../../persistence/transaction-index';
import type { ChainEntry } from '../../persistence/read-chains';
import type { TransactionStore } from '../../persistence/transactions';
import type { RefundStore } from '../../persistence/refunds';
import type { TransactionSearch } from '../../services/transaction-search';

// The dashboard's search box (docs/decisions/dashboard/search-by-reference-and-phone-digits.md): a
// part of a reference, or the last digits of the customer's number as the page shows them masked
// (+225 07 •• •• 12 34). The scope's list of everything is walked newest first and each entry is
// matched on what it carries (the reference and the number's last four digits, IndexMember), so a
// page reads entries, not records, and only the matches' records; at most BUDGET entries a page,
// a sparse match answers a short page whose cursor goes on.

const BUDGET = 2_000;

export interface DashboardSearchQuery {
  /** A part of the reference, any case. */
  q?: string;
  /** The number's last digits (2 to 4). */
  phone?: string;
  limit: number;
}

export class DashboardSearch {
  constructor(
    private readonly deps: {
      transactions: TransactionStore;
      refunds: RefundStore;
      search: TransactionSearch;
    },
  ) {}

  async find(
    scope: string,
    query: DashboardSearchQuery,
    before?: number,
  ): Promise<{ data: unknown[]; next: number | null }> {
    const needle = query.q?.toLowerCase();
    const matches = (ref: string | undefined, phone: string | undefined) =>
      (!needle || (ref ?? '').toLowerCase().includes(needle)) &&
      (!query.phone || (phone ?? '').endsWith(query.phone));
    const page = await this.deps.transactions.index.walk(
      scope,
      { by: 'all' },
      {
        ...(before !== undefined ? { before } : {}),
        limit: query.limit,
        budget: BUDGET,
        keep: (e: ChainEntry<IndexMember>) =>
          // Entries from before `ref` existed are kept here and checked on their record below.
          e.doc.ref === undefined || matches(e.doc.ref, e.doc.p4),
      },
    );
    const found = await Promise.all(
      page.entries.map(async (e) => {
        if (e.doc.kind === 'refund') {
          const refund = await this.deps.refunds.findById(e.doc.id);
          if (
            !refund ||
            !listed(e, refund.createdAt) ||
            !matches(refund.externalReference, refund.customerMsisdn.slice(-4))
          )
            return null;
          return this.deps.search.recordOf({ refund });
        }
        const tx = await this.deps.transactions.findById(e.doc.id);
        if (!tx || !listed(e, tx.createdAt) || !matches(tx.reference, tx.customer.phoneNumber.slice(-4)))
          return null;
        return this.deps.search.recordOf({ tx });
      }),
    );
    return { data: found.filter((r) => r !== null), next: page.next };
  }
}
