// Moved to src/ledger/postings.ts (every money movement in one file); kept until its last importers follow.
export { creditPayin, payinNet, payinSourceRefs } from '../ledger/postings';
