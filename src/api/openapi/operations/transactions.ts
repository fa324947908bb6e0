import { defineOperations } from '../registry';
import { transactionSearchPage, transactionSearchQuery } from '../../../contract/schemas/transaction-search';
import * as ex from './examples';

// GET /v1/transactions: find any payin, payout or refund (docs/search.md).

defineOperations({
  method: 'get',
  path: '/v1/transactions',
  operationId: 'listTransactions',
  summary: 'List and search transactions',
  description:
    'Your payins, payouts and refunds, newest first (by `createdAt`; `from` inclusive, `to` exclusive). ' +
    'Each item is the record its own read endpoint returns (`type` says which). Filters combine; ' +
    '`metadata[key]=value` may be given several times (every pair must match). `reference` is exact: ' +
    "the merchant's reference of a payin or payout, or a refund's `rf_` reference. A page reads a " +
    'bounded number of entries whatever is stored, so with rare filters it may hold fewer than `limit` ' +
    'items while `nextCursor` still continues; the list is done when `nextCursor` is null. A cursor ' +
    "belongs to the filters it was issued with. `provider` takes the records' spelling (`MTN_CI`) or the " +
    "requests' (`MTN`: that operator in every country it serves, or in `country` when given).",
  tag: 'Transactions',
  auth: true,
  query: transactionSearchQuery,
  responses: {
    200: {
      description: 'A page of transactions',
      name: 'TransactionPage',
      schema: transactionSearchPage,
      example: {
        data: [ex.payinRecordExample, ex.refundRecordExample],
        nextCursor: 'eyJzIjoxMiwicSI6IkFiQ2QifQ',
      },
    },
  },
});
