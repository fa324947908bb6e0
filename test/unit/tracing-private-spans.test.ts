import { SpanKind, SpanStatusCode } from '@opentelemetry/api';
import type { ReadableSpan } from '@opentelemetry/sdk-trace-base';
import { privateSpan } from '../../src/infra/tracing';

// What a span may carry out of the process (src/infra/tracing.ts): an allowlist of attributes, paths
// without their query, no exception message or status message. The instrumentations add attributes
// of their own (full URLs, peer addresses, user agents) that this must drop whatever they become.
describe('privateSpan', () => {
  const span = {
    name: 'GET',
    kind: SpanKind.CLIENT,
    attributes: {
      'http.request.method': 'GET',
      'url.full': 'http://operator.example/collections?msisdn=%2B2250512345678',
      'url.path': '/collections/0512345678?msisdn=%2B2250512345678',
      'http.route': '/v1/payin/:reference',
      'server.address': 'operator.example',
      'network.peer.address': '10.1.2.3',
      'user_agent.original': 'Mozilla/5.0',
      'http.response.status_code': 500,
      temporalWorkflowId: 'payin:m_1:ref-1',
    },
    events: [
      {
        name: 'exception',
        time: [0, 0],
        attributes: {
          'exception.type': 'OperatorError',
          'exception.message': 'refused for +2250512345678',
          'exception.stacktrace': 'at x',
        },
      },
    ],
    status: { code: SpanStatusCode.ERROR, message: 'refused for +2250512345678' },
    links: [{ context: { traceId: 'a', spanId: 'b', traceFlags: 1 }, attributes: { msisdn: '+225' } }],
  } as unknown as ReadableSpan;

  it('keeps the allowed attributes, a path without its query, and drops the rest', () => {
    const out = privateSpan(span);
    expect(out.attributes).toEqual({
      'http.request.method': 'GET',
      'url.path': '/collections/0512345678',
      'http.route': '/v1/payin/:reference',
      'server.address': 'operator.example',
      'http.response.status_code': 500,
      temporalWorkflowId: 'payin:m_1:ref-1',
    });
    expect(out.name).toBe('GET');
    expect(out.kind).toBe(SpanKind.CLIENT);
  });

  it('keeps an exception’s type and the status code, not their messages', () => {
    const out = privateSpan(span);
    expect(out.events).toEqual([
      { name: 'exception', time: [0, 0], attributes: { 'exception.type': 'OperatorError' } },
    ]);
    expect(out.status).toEqual({ code: SpanStatusCode.ERROR });
    expect(out.links).toEqual([]);
    expect(JSON.stringify([out.attributes, out.events, out.status])).not.toContain('+225');
  });
});
