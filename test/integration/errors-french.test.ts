import { randomUUID } from 'node:crypto';
import { WebSocket } from 'ws';
import { useStack } from '../helpers/use-stack';
import { basic } from '../helpers/http';
import { englishWords } from '../helpers/english-words';
import { openApiDocument } from '../../src/api/openapi/document';
import { problemCatalogue } from '../../src/contract/problems';

// A French request never meets English text: bad requests of every kind to every operation of the
// OpenAPI document, and to the checkout, all with Accept-Language: fr; every problem document
// answered is scanned (title, detail, errors[].message: the prose; code, type, paths are names).
// Then each problem's `type` resolves to its entry of the error reference.

interface Problem {
  type: string;
  title: string;
  detail?: string;
  code: string;
  errors?: { path: string; message: string }[];
}
interface Answer {
  request: string;
  status: number;
  problem: Problem | null;
}

describe('errors in French', () => {
  const { stack, merchant, api } = useStack({ merchant: 'Errors en français' });
  const answers: Answer[] = [];

  /** A raw request (no contract assertion: the point is to send what the document refuses). */
  async function send(
    method: string,
    path: string,
    body?: string,
    headers: Record<string, string> = {},
    auth: 'merchant' | 'none' | 'wrong' | 'garbled' = 'merchant',
  ): Promise<Answer> {
    const h: Record<string, string> = { 'accept-language': 'fr', ...headers };
    if (auth === 'merchant') h.authorization = basic(merchant.credentials);
    if (auth === 'wrong') h.authorization = basic({ apiKey: 'mk_test_nope', apiClient: 'nope' });
    if (auth === 'garbled') h.authorization = 'Basic ***';
    if (body !== undefined) h['content-type'] ??= 'application/json';
    const res = await fetch(`${stack.baseUrl}${path}`, { method, headers: h, body });
    const text = await res.text();
    const isProblem = (res.headers.get('content-type') ?? '').startsWith('application/problem+json');
    const answer = {
      request: `${method} ${path} ${body ?? ''} ${JSON.stringify(headers)} auth=${auth}`,
      status: res.status,
      problem: isProblem ? (JSON.parse(text) as Problem) : null,
    };
    answers.push(answer);
    return answer;
  }

  /** A value of another JSON type than the schema asks for. */
  const wrongValue = (schema: { type?: string | string[] } | undefined): unknown => {
    const type = Array.isArray(schema?.type) ? schema.type[0] : schema?.type;
    if (type === 'string') return 12;
    if (type === 'array') return 'x';
    if (type === 'object') return ['x'];
    return 'x';
  };

  const doc = openApiDocument() as unknown as {
    paths: Record<
      string,
      Record<string, { requestBody?: unknown; parameters?: { in?: string; name?: string }[] }>
    >;
    components: { schemas: Record<string, unknown> };
  };
  const resolve = (s: unknown): { type?: string; properties?: Record<string, { type?: string }> } => {
    const ref = (s as { $ref?: string } | undefined)?.$ref;
    return (ref ? doc.components.schemas[ref.split('/').pop()!] : s) as never;
  };
  const operations = Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops)
      .filter(([method]) => ['get', 'post', 'put', 'delete'].includes(method))
      .map(([method, op]) => ({ method: method.toUpperCase(), path, op })),
  );

  it('every operation, sent bad input of each kind, answers French problems only', async () => {
    // A real payin and session, so the refund and the checkout validate past "not found".
    const payin = await api.post('/v1/direct/payin', {
      reference: `fr-${randomUUID()}`,
      sandboxScenario: 'completed',
      payin: { amount: 5000, msisdn: '+2250500000001', provider: 'MTN', country: 'CI' },
      action: { successUrl: 'https://m.example/ok', failureUrl: 'https://m.example/ko' },
    });
    expect(payin.status).toBe(201);
    const session = await api.post('/v1/payin/sessions', {
      reference: `fr-${randomUUID()}`,
      sandboxScenario: 'completed',
      amount: 5000,
      msisdn: '+2250500000001',
      country: 'CI',
      action: { successUrl: 'https://m.example/ok', failureUrl: 'https://m.example/ko' },
    });
    expect(session.status).toBe(201);
    const params: Record<string, string> = { reference: payin.body.reference, id: session.body.id };

    for (const { method, path, op } of operations) {
      const real = path.replace(/\{(\w+)\}/g, (_, name: string) => params[name] ?? `nope-${name}`);
      const unknown = path.replace(/\{(\w+)\}/g, (_, name: string) => `nope-${name}`);
      const key = () => ({ 'x-idempotency-key': randomUUID() });
      await send(method, real, undefined, {}, 'none');
      await send(method, real, undefined, {}, 'wrong');
      await send(method, real, undefined, {}, 'garbled');
      if (method === 'POST' || method === 'PUT') {
        const schema = resolve(
          (op.requestBody as { content?: Record<string, { schema?: unknown }> } | undefined)?.content?.[
            'application/json'
          ]?.schema,
        );
        const wrong = Object.fromEntries(
          Object.entries(schema?.properties ?? {}).map(([k, s]) => [k, wrongValue(resolve(s))]),
        );
        for (const p of [real, unknown]) {
          await send(method, p, '{}', key());
          await send(method, p, JSON.stringify({ ...wrong, notAField: true }), key());
          await send(method, p, '[]', key());
          await send(method, p, '{"reference":', key());
          await send(method, p, '{}', { ...key(), 'content-type': 'text/plain' });
        }
        await send(method, real, '{}');
        await send(method, real, '{}', { 'x-idempotency-key': 'not-a-uuid' });
      } else {
        await send(method, real);
        await send(method, unknown);
        const query = (op.parameters ?? [])
          .filter((p) => p.in === 'query' && p.name)
          .map((p) => `${p.name}=%zz-not-valid`)
          .join('&');
        await send(method, `${real}?${query}${query ? '&' : ''}notAParam=1`);
        await send(method, `${real}?limit=0&limit=1000&from=yesterday&to=x&cursor=%00`);
      }
      await send('PATCH', real);
    }
    // The checkout as a customer types: national numbers of another operator, no OTP, garbage.
    const confirm = `/checkout/${session.body.id}/confirm`;
    for (const body of [
      { provider: 'ORANGE', msisdn: '+2250700000001' },
      { provider: 'MTN', msisdn: '+2250700000001' },
      { provider: 'MTN', msisdn: '+2259' },
      { provider: 'WAVE', msisdn: '+237650000001' },
      { provider: 'NOPE', msisdn: 'abc', otp: '1' },
      { provider: 'MTN', msisdn: '+2250500000001', otp: 'x', extra: 1 },
    ]) {
      await send('POST', confirm, JSON.stringify(body), {}, 'none');
    }
    const empty = await send('POST', '/v1/direct/payin', '{}', { 'x-idempotency-key': randomUUID() });
    expect(empty.problem?.errors).toContainEqual({ path: 'reference', message: 'Obligatoire.' });
    const badReference = JSON.stringify({
      reference: 'a b',
      payin: { amount: 0.5 },
      action: { successUrl: 'ftp://x' },
    });
    await send('POST', '/v1/direct/payin', badReference, { 'x-idempotency-key': randomUUID() });
    await send('POST', '/v1/payin/sessions', badReference, { 'x-idempotency-key': randomUUID() });
    await send('GET', '/v1/nope');
    await send('GET', '/nope', undefined, {}, 'none');
    await send('GET', '/v1/transactions?metadata[a b]=1&provider=MTN&limit=abc');

    const problems = answers.filter((a) => a.problem);
    expect(problems.length).toBeGreaterThan(200);
    // Every error of the API is a problem document (an HTML 404 of the checkout's or a payment
    // link's page aside: a browser follows those links).
    expect(
      answers.filter((a) => a.status >= 400 && !a.problem && !/^GET \/(checkout|l)\//.test(a.request)),
    ).toEqual([]);
    expect(answers.filter((a) => a.status >= 500)).toEqual([]);

    const english = problems.flatMap(({ request, problem }) =>
      [problem!.title, problem!.detail ?? '', ...(problem!.errors ?? []).map((e) => e.message)]
        .map((text) => ({ request, text, english: englishWords(text) }))
        .filter((f) => f.english.length > 0),
    );
    expect(english).toEqual([]);
    // zod's own French ("Entrée invalide : chaîne de caractères attendu, indéfini reçu") is not ours.
    const zodFrench = problems.flatMap(({ problem }) =>
      (problem!.errors ?? []).map((e) => e.message).filter((m) => /Entrée invalide|attendu, .* reçu/.test(m)),
    );
    expect(zodFrench).toEqual([]);
    // Each pattern of ours says what it wants, rather than the fallback's "wrong format".
    const vague = problems.filter(({ problem }) =>
      (problem!.errors ?? []).some((e) => e.message === "N'a pas le format attendu."),
    );
    expect(vague).toEqual([]);
    // And every answer's title is the catalogue's French one.
    for (const { problem } of problems) {
      const entry = problemCatalogue[problem!.code as keyof typeof problemCatalogue];
      expect({ code: problem!.code, title: problem!.title }).toEqual({
        code: problem!.code,
        title: entry.title.fr,
      });
    }
  });

  it("each problem's type resolves to its entry of the error reference, in both languages", async () => {
    const types = [...new Set(answers.flatMap((a) => (a.problem ? [a.problem.type] : [])))];
    expect(types.length).toBeGreaterThan(5);
    for (const type of types) {
      const [path, anchor] = type.split('#');
      for (const lang of ['fr', 'en']) {
        const res = await fetch(`${stack.baseUrl}${path}`, { headers: { 'accept-language': lang } });
        expect(res.status).toBe(200);
        expect(res.headers.get('content-type')).toMatch(/^text\/html/);
        const html = await res.text();
        expect(html).toContain(`<html lang="${lang}">`);
        expect(html).toContain(`id="${anchor}"`);
      }
    }
    const fr = await fetch(`${stack.baseUrl}/docs/errors?lang=fr`, { headers: { 'accept-language': 'en' } });
    expect(await fr.text()).toContain('Que faire');
    const json = await fetch(`${stack.baseUrl}/docs/errors`, { headers: { accept: 'application/json' } });
    expect(json.status).toBe(200);
    const body = (await json.json()) as { errors: { code: string; help: string }[] };
    expect(body.errors.map((e) => e.code)).toEqual(Object.keys(problemCatalogue));
    expect(body.errors.every((e) => e.help.length > 0)).toBe(true);
  });

  it('the realtime WebSocket writes its error messages in the language of the upgrade', async () => {
    const url = `${stack.baseUrl.replace(/^http/, 'ws')}/v1/ws`;
    const ws = new WebSocket(url, {
      headers: { authorization: basic(merchant.credentials), 'accept-language': 'fr' },
    });
    const messages: { type: string; code?: string; message?: string }[] = [];
    ws.on('message', (data: Buffer) => messages.push(JSON.parse(data.toString('utf8'))));
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    ws.send('not json');
    ws.send(JSON.stringify({ type: 'nope' }));
    ws.send(JSON.stringify({ type: 'subscribe', lastEventId: 'evt_nope' }));
    const deadline = Date.now() + 10_000;
    while (messages.filter((m) => m.type === 'error').length < 3 && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    ws.close();
    const errors = messages.filter((m) => m.type === 'error');
    expect(errors.map((m) => m.code)).toEqual(['MALFORMED_JSON', 'VALIDATION_ERROR', 'EVENT_NOT_FOUND']);
    for (const e of errors)
      expect({ message: e.message, english: englishWords(e.message!) }).toEqual({
        message: e.message,
        english: [],
      });
  });
});
