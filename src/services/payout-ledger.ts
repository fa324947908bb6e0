// Moved to src/ledger/postings.ts (every money movement in one file); kept until its last importers follow.
export { debitPayout, payoutSourceRefs, reversePayout, settlePayoutFee } from '../ledger/postings';
