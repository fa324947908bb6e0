import type { Connection } from 'mongoose';
import { connectTestMongo } from '../helpers/stack';
import { auditQueries, classify } from '../helpers/query-audit';

// The query audit helper itself, on the real FerretDB: it must see every command and call only an
// exact `_id` filter bounded (FerretDB 1.24 pushes nothing else down).
describe('query audit helper', () => {
  let mongo: Connection;
  beforeAll(async () => {
    mongo = await connectTestMongo();
    await mongo.db!.collection('things').insertMany([
      { _id: 'a' as never, merchantId: 'm1' },
      { _id: 'b' as never, merchantId: 'm2' },
    ]);
  });
  afterAll(() => mongo.close());

  it('classifies exact _id reads as bounded and any other filter as a scan', async () => {
    const things = mongo.db!.collection<{ _id: string; merchantId: string }>('things');
    const audit = await auditQueries(mongo, async () => {
      await things.findOne({ _id: 'a' });
      await things.find({ merchantId: 'm1' }).toArray();
      await things.find({ _id: { $in: ['a', 'b'] } }).toArray();
      await things
        .find({ _id: { $gt: 'a' } })
        .limit(5)
        .toArray();
      await things.updateOne({ _id: 'a' }, { $set: { x: 1 } });
      await things.deleteMany({ merchantId: 'nobody' });
      await things.countDocuments({ merchantId: 'm1' });
    });
    expect(audit.queries.map((q) => [q.kind, q.bounded])).toEqual([
      ['find', true],
      ['find', false],
      ['find', false],
      ['find', false],
      ['update', true],
      ['delete', false],
      ['aggregate', false],
    ]);
    expect(audit.scans).toHaveLength(5);
  });

  it('counts a hard limit on a listed small collection, and opted-in _id ranges', async () => {
    expect(classify('find', 'small', { merchantId: 'm' }, 10, null, { small: { small: 50 } }).bounded).toBe(
      true,
    );
    expect(classify('find', 'small', { merchantId: 'm' }, 100, null, { small: { small: 50 } }).bounded).toBe(
      false,
    );
    expect(classify('find', 'small', { merchantId: 'm' }, null, null, { small: { small: 50 } }).bounded).toBe(
      false,
    );
    const ranges = { idRanges: { maxIn: 10, maxLimit: 100 } };
    expect(classify('find', 'c', { _id: { $gt: 'a', $lt: 'b' } }, 20, null, ranges).bounded).toBe(true);
    expect(classify('find', 'c', { _id: { $gt: 'a' } }, null, null, ranges).bounded).toBe(false);
    expect(classify('find', 'c', { _id: { $in: ['a'] } }, null, null, ranges).bounded).toBe(true);
  });

  it('records only the audited database', async () => {
    const other = mongo.useDb(`${mongo.name}_other`);
    const audit = await auditQueries(mongo, async () => {
      await other.db!.collection('x').find({ merchantId: 'm' }).toArray();
    });
    expect(audit.queries).toEqual([]);
  });
});
