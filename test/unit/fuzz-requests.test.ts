import { requestCountSamples, served } from '../../scripts/fuzz-requests';

// The fuzz's count of requests served, read from an API's /metrics when it runs on the SDK suites'
// stack (issue 42): only the request-count samples, the simulator's accepted callbacks left out.
describe('the requests the fuzz had served', () => {
  const metrics = [
    '# HELP payments_http_request_duration_seconds HTTP request duration',
    '# TYPE payments_http_request_duration_seconds histogram',
    'payments_http_request_duration_seconds_bucket{le="0.1",method="GET",route="/v1/transactions",status="200"} 7',
    'payments_http_request_duration_seconds_count{method="GET",route="/v1/transactions",status="200"} 9',
    'payments_http_request_duration_seconds_count{method="POST",route="/v1/direct/payin",status="400"} 4',
    'payments_http_request_duration_seconds_count{method="POST",route="/operator-callbacks/mtn",status="204"} 5',
    'payments_http_request_duration_seconds_count{method="POST",route="/operator-callbacks/mtn",status="401"} 2',
    'payments_http_requests_in_flight 0',
  ].join('\n');

  it('reads the count samples of a /metrics text', () => {
    expect(requestCountSamples(metrics)).toEqual([
      { route: '/v1/transactions', status: '200', value: 9 },
      { route: '/v1/direct/payin', status: '400', value: 4 },
      { route: '/operator-callbacks/mtn', status: '204', value: 5 },
      { route: '/operator-callbacks/mtn', status: '401', value: 2 },
    ]);
  });

  it('counts them by status class, without the accepted operator callbacks', () => {
    expect(served(requestCountSamples(metrics))).toEqual({ total: 15, byStatus: { '2xx': 9, '4xx': 6 } });
  });
});
