import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

// Custom search attributes, registered on every Temporal server we run (dev server flags,
// docker-compose setup job, tests), so ops can filter transactions in the Temporal UI.
export const searchAttributes = {
  MerchantId: 'Keyword',
  TransactionKind: 'Keyword',
  TransactionReference: 'Keyword',
  Provider: 'Keyword',
  TransactionStatus: 'Keyword',
} as const;

export const saMerchantId = defineSearchAttributeKey('MerchantId', SearchAttributeType.KEYWORD);
export const saKind = defineSearchAttributeKey('TransactionKind', SearchAttributeType.KEYWORD);
export const saReference = defineSearchAttributeKey('TransactionReference', SearchAttributeType.KEYWORD);
export const saProvider = defineSearchAttributeKey('Provider', SearchAttributeType.KEYWORD);
export const saStatus = defineSearchAttributeKey('TransactionStatus', SearchAttributeType.KEYWORD);
