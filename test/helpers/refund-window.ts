import type { Connection } from 'mongoose';

/**
 * Moves a payin's refund window end (`refundableUntil`, on its document and in its state versions),
 * as days passing would: the window is checked on the wall clock, which time skipping does not move.
 */
export async function moveRefundWindow(mongo: Connection, payinId: string, to: Date): Promise<void> {
  await mongo.collection('transactions').updateOne({ id: payinId }, { $set: { refundableUntil: to } });
  const versions = mongo.collection('transaction_states');
  for (const v of await versions.find({ recordId: payinId }).toArray()) {
    const state = (v.state as { path: string; value: unknown }[]).map((e) =>
      e.path === 'refundableUntil' ? { ...e, value: to } : e,
    );
    await versions.updateOne({ _id: v._id }, { $set: { state } });
  }
}
