import { Agent, request } from 'node:http';
import { problemSchema } from '../../src/contract/problems';
import { useStack } from '../helpers/use-stack';
import { ApiClient, rawRequest } from '../helpers/http';

// Node's HTTP parser answers what it cannot parse with a bare 400 and no body; the server answers
// a problem document instead (src/api/malformed-requests.ts), and the 400s and 401s Express gives
// for a bad URL or a bad Authorization header are problem documents too.
describe('requests Node cannot parse answer a problem document', () => {
  const { stack, merchant } = useStack({ merchant: 'Malformed merchant' });

  const wrapped = () => {
    // GNU base64 wraps at 76 characters: the header the README's old quick start built.
    const token = Buffer.from(`${merchant.credentials.apiKey}:${merchant.credentials.apiClient}`).toString(
      'base64',
    );
    return `Basic ${token.slice(0, 76)}\n${token.slice(76)}`;
  };

  it.each([
    ['a header value split by a raw line break (base64 wrapping)', () => `Authorization: ${wrapped()}\r\n`],
    ['a header line without a colon', () => 'Authorization Basic abc\r\n'],
    ['a non-numeric Content-Length', () => 'Content-Length: ten\r\n'],
    [
      'both Content-Length and Transfer-Encoding',
      () => 'Content-Length: 2\r\nTransfer-Encoding: chunked\r\n',
    ],
  ])('%s: 400 MALFORMED_REQUEST', async (_name, header) => {
    const res = await rawRequest(
      stack.baseUrl,
      `GET /v1/payin/order-1 HTTP/1.1\r\nHost: localhost\r\n${header()}\r\n`,
    );
    expect(res.status).toBe(400);
    expect(res.headers).toMatch(/\r\ncontent-type: application\/problem\+json/i);
    const problem = problemSchema.parse(JSON.parse(res.body));
    expect(problem).toMatchObject({
      status: 400,
      code: 'MALFORMED_REQUEST',
      type: '/docs/errors#MALFORMED_REQUEST',
    });
    expect(problem.detail).toContain('curl -u');
  });

  it('answers in the language the request asked for, when its header was read', async () => {
    const res = await rawRequest(
      stack.baseUrl,
      `GET /v1/payin/order-1 HTTP/1.1\r\nHost: localhost\r\nAccept-Language: fr\r\nAuthorization: ${wrapped()}\r\n\r\n`,
    );
    expect(JSON.parse(res.body)).toMatchObject({ code: 'MALFORMED_REQUEST', title: 'Requête mal formée' });
  });

  it('an HTTP/1.1 request without Host: 400 MALFORMED_REQUEST; an unknown Expect is ignored', async () => {
    const noHost = await rawRequest(
      stack.baseUrl,
      'GET /health/live HTTP/1.1\r\nAccept-Language: fr\r\n\r\n',
    );
    expect(noHost.status).toBe(400);
    expect(noHost.headers).toMatch(/\r\ncontent-type: application\/problem\+json/i);
    expect(JSON.parse(noHost.body)).toMatchObject({ code: 'MALFORMED_REQUEST', title: 'Requête mal formée' });
    const expectation = await rawRequest(
      stack.baseUrl,
      'GET /health/live HTTP/1.1\r\nHost: localhost\r\nExpect: something\r\nConnection: close\r\n\r\n',
    );
    expect(expectation.status).toBe(200);
  });

  it('headers over the limit: 431 REQUEST_HEADERS_TOO_LARGE', async () => {
    const res = await rawRequest(
      stack.baseUrl,
      `GET /health/live HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
    );
    expect(res.status).toBe(431);
    expect(JSON.parse(res.body)).toMatchObject({ status: 431, code: 'REQUEST_HEADERS_TOO_LARGE' });
  });

  it('a bad Authorization (wrong scheme, not base64, no colon) and a bad URL escape answer problems', async () => {
    for (const authorization of [
      'Basic !!!',
      'Bearer abc',
      'Basic',
      `Basic ${Buffer.from('nocolon').toString('base64')}`,
    ]) {
      const res = await new ApiClient(stack.baseUrl, null).get('/v1/payin/order-1', { authorization });
      expect([authorization, res.status, res.body.code]).toEqual([authorization, 401, 'UNAUTHORIZED']);
      expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
    }
    const api = new ApiClient(stack.baseUrl, merchant.credentials);
    const res = await api.get('/v1/payin/%E0%A4%A');
    expect(res.status).toBe(400);
    expect(res.headers.get('content-type')).toMatch(/application\/problem\+json/);
  });

  // A load balancer keeps its connections to the API for 60 s (nginx's upstream keep-alive, AWS
  // ALB); had the API closed first (Node's default is 5 s), a request the balancer sent on a closing
  // connection would be answered 502 (issue 45's production bench: 2 of 200 creations).
  it('keeps an idle connection open longer than a load balancer does, and says so', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 });
    const get = () =>
      new Promise<{ status: number; keepAlive: string; reused: boolean }>((resolve, reject) => {
        const req = request(`${stack.baseUrl}/health/live`, { agent }, (res) => {
          res.resume();
          res.on('end', () =>
            resolve({
              status: res.statusCode ?? 0,
              keepAlive: String(res.headers['keep-alive']),
              reused: req.reusedSocket,
            }),
          );
        });
        req.on('error', reject);
        req.end();
      });
    try {
      expect(await get()).toEqual({ status: 200, keepAlive: 'timeout=65', reused: false });
      // Past Node's default (5 s), and past the client's own margin under the hint (hint - 1 s).
      await new Promise((r) => setTimeout(r, 6_500));
      expect(await get()).toEqual({ status: 200, keepAlive: 'timeout=65', reused: true });
    } finally {
      agent.destroy();
    }
  });
});
