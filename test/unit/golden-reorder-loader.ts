// A webpack loader for golden-histories.test.ts: the payin workflow with two of its steps swapped
// (the partner asked before the ambiguous failure is recorded), as a change made without `patched()`
// would. Throws when the lines are not found, so that test cannot pass vacuously.
const recordFirst = `await end(run, 'failed', failure);
  if (!(await correctedByPartner(run, req))) return;`;
const checkFirst = `const corrected = await correctedByPartner(run, req);
  await end(run, 'failed', failure);
  if (!corrected) return;`;

export default function reorder(this: { resourcePath: string }, source: string): string {
  if (!source.includes(recordFirst))
    throw new Error(`golden-reorder-loader: not found in ${this.resourcePath}`);
  return source.replace(recordFirst, checkFirst);
}
