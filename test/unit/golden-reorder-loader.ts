// A webpack loader for golden-histories.test.ts: the payin workflow with two of its commands swapped
// (the merchant credited before the acceptance is recorded), as a change made without `patched()`
// would. Throws when the lines are not found, so that test cannot pass vacuously.
const recordFirst = `await run.record({ confirmationStatus: 'accepted' });
    await acts.creditMerchantForPayin(input.transactionId);`;
const creditFirst = `await acts.creditMerchantForPayin(input.transactionId);
    await run.record({ confirmationStatus: 'accepted' });`;

export default function reorder(this: { resourcePath: string }, source: string): string {
  if (!source.includes(recordFirst))
    throw new Error(`golden-reorder-loader: not found in ${this.resourcePath}`);
  return source.replace(recordFirst, creditFirst);
}
