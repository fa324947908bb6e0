import { randomUUID } from 'node:crypto';
import { totpCode } from '../../src/dashboard/identity/totp';
import { DashboardIdentity } from '../../src/dashboard/identity';
import type { Role } from '../../src/dashboard/access/roles';
import { merchantOfScope } from '../../src/domain/modes';
import type { TestStack } from './stack';

// A browser of the dashboard in tests: one cookie jar (the session cookie), the CSRF token of the
// session, the page's Origin. Members are made the way an operator's CLI invites the first owner.

export interface DashResponse<T = any> {
  status: number;
  headers: Headers;
  body: T;
}

// Each browser gets an address no other browser of this test file has: the per-address limiters
// (sign-in failures, which invitation accepts also count) must see each browser alone. A random
// address (1 of 250, as before) sometimes fell on the one an earlier test had driven to its limit
// within the minute, and an accept then answered 429 instead of 410.
const documentationNets = ['198.51.100', '203.0.113', '192.0.2'];
let browsers = 0;
function nextBrowserAddress(): string {
  const n = browsers++;
  const net = documentationNets[Math.floor(n / 254) % documentationNets.length]!;
  return `${net}.${(n % 254) + 1}`;
}

export class DashboardBrowser {
  cookie: string | null = null;
  csrf: string | null = null;
  constructor(
    readonly baseUrl: string,
    /** X-Forwarded-For (the stack trusts loopback): a distinct client address per browser. */
    readonly address = nextBrowserAddress(),
  ) {}

  async request<T = any>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<DashResponse<T>> {
    const h: Record<string, string> = {
      'x-forwarded-for': this.address,
      'user-agent': 'dashboard-test',
      ...headers,
    };
    if (this.cookie) h.cookie ??= `dashboard_session=${this.cookie}`;
    if (method !== 'GET' && this.csrf) h['x-csrf-token'] ??= this.csrf;
    if (method !== 'GET') h.origin ??= this.baseUrl;
    if (body !== undefined) h['content-type'] = 'application/json';
    if (method === 'POST' && path.startsWith('/dashboard/api/v1/')) h['x-idempotency-key'] ??= randomUUID();
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: h,
      ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
    });
    const set = res.headers.getSetCookie().find((c) => c.startsWith('dashboard_session='));
    if (set) {
      const value = /^dashboard_session=([^;]*)/.exec(set)![1]!;
      this.cookie = value || null;
    }
    const text = await res.text();
    let parsed: unknown = text;
    try {
      parsed = text ? JSON.parse(text) : undefined;
    } catch {
      // CSV or HTML: kept as text
    }
    const out = { status: res.status, headers: res.headers, body: parsed as T };
    if (out.status < 300 && typeof (out.body as { csrfToken?: unknown })?.csrfToken === 'string')
      this.csrf = (out.body as { csrfToken: string }).csrfToken;
    return out;
  }

  /** A file as the body (an upload), with the session's cookie and CSRF token. */
  async upload<T = any>(
    method: string,
    path: string,
    bytes: Buffer,
    contentType: string,
    headers: Record<string, string> = {},
  ): Promise<DashResponse<T>> {
    const res = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        'x-forwarded-for': this.address,
        origin: this.baseUrl,
        'content-type': contentType,
        ...(this.cookie ? { cookie: `dashboard_session=${this.cookie}` } : {}),
        ...(this.csrf ? { 'x-csrf-token': this.csrf } : {}),
        ...headers,
      },
      body: new Uint8Array(bytes),
    });
    const text = await res.text();
    return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : undefined) as T };
  }

  get<T = any>(path: string, headers?: Record<string, string>) {
    return this.request<T>('GET', path, undefined, headers);
  }
  post<T = any>(path: string, body?: unknown, headers?: Record<string, string>) {
    return this.request<T>('POST', path, body ?? {}, headers);
  }

  signIn(email: string, password: string, totp?: string) {
    return this.post('/dashboard/api/auth/sign-in', { email, password, ...(totp ? { totp } : {}) });
  }
}

/** The code of now, or of a later 30-second step (a code signs in once: the next sign-in takes the next one). */
export const totpNow = (secret: string, stepsAhead = 0): string =>
  totpCode(secret, Date.now() + stepsAhead * 30_000);

export async function dashboardIdentity(stack: TestStack): Promise<DashboardIdentity> {
  const identity = DashboardIdentity.on(stack.mongo, stack.config.DATA_ENCRYPTION_KEYS);
  await identity.init();
  return identity;
}

/** Invites as the operator's CLI does; returns the link's token. */
export async function invite(stack: TestStack, scope: string, email: string, role: Role): Promise<string> {
  const identity = await dashboardIdentity(stack);
  const { token } = await identity.invitations.create({
    merchantId: merchantOfScope(scope),
    email,
    role,
    invitedBy: 'operator',
  });
  return token;
}

export const PASSWORD = 'correct horse battery staple';

/** A member of the merchant, signed in: invited, then accepted (which signs in). */
export async function signedInMember(
  stack: TestStack,
  scope: string,
  role: Role,
  email = `${role}-${randomUUID().slice(0, 8)}@example.test`,
): Promise<{ browser: DashboardBrowser; email: string }> {
  const token = await invite(stack, scope, email, role);
  const browser = new DashboardBrowser(stack.baseUrl);
  const res = await browser.post(`/dashboard/api/invitations/${token}/accept`, {
    name: `A ${role}`,
    password: PASSWORD,
  });
  if (res.status !== 201) throw new Error(`accept: ${res.status} ${JSON.stringify(res.body)}`);
  return { browser, email };
}
