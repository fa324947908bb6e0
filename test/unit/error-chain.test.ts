import { errorChain } from '../../src/infra/error-chain';

describe('errorChain', () => {
  it('yields the error then its causes, and stops at a cause that is not an object', () => {
    const root = { name: 'root' };
    const middle = new Error('middle', { cause: root });
    const top = new Error('top', { cause: middle });
    expect([...errorChain(top)]).toEqual([top, middle, root]);
    expect([...errorChain(new Error('x', { cause: 'a string' }))]).toHaveLength(1);
    expect([...errorChain(undefined)]).toEqual([]);
    expect([...errorChain('text')]).toEqual([]);
  });

  it('is bounded: a cycle of causes ends after five links', () => {
    const a: { cause?: unknown } = {};
    const b = { cause: a };
    a.cause = b;
    expect([...errorChain(a)]).toHaveLength(5);
  });
});
