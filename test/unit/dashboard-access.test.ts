import { sessionTokenOf } from '../../src/dashboard/access/sessions';
import { hashToken, newToken, sameSecret } from '../../src/dashboard/identity/tokens';
import { newTotpSecret, totpCode, totpEnrolment, totpStep } from '../../src/dashboard/identity/totp';
import { hashPassword, verifyPassword } from '../../src/dashboard/identity/passwords';
import { dashboardCsp } from '../../src/dashboard/app';
import { maskText } from '../../src/infra/log-masking';

describe('dashboard access, pure parts', () => {
  it('tokens are 32 random bytes, stored as SHA-256, compared in constant time', () => {
    const t = newToken();
    expect(t).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(newToken()).not.toBe(t);
    expect(hashToken(t)).toMatch(/^[0-9a-f]{64}$/);
    expect(sameSecret(t, t)).toBe(true);
    expect(sameSecret(t, `${t}x`)).toBe(false);
    expect(sameSecret(t, newToken())).toBe(false);
  });

  it('reads the session cookie among others, and nothing shaped otherwise', () => {
    const t = newToken();
    expect(sessionTokenOf(`a=1; dashboard_session=${t}; b=2`)).toBe(t);
    expect(sessionTokenOf('dashboard_session=short')).toBeNull();
    expect(sessionTokenOf(undefined)).toBeNull();
    expect(sessionTokenOf(`xdashboard_session=${t}`)).toBeNull();
  });

  it('TOTP: the current code passes, others and malformed ones do not; the QR code is an SVG data URL', async () => {
    const secret = newTotpSecret();
    const code = totpCode(secret);
    const now = Date.now();
    expect(totpStep(secret, code, now)).toBe(Math.floor(now / 30_000));
    expect(totpStep(secret, code === '000000' ? '111111' : '000000')).toBeNull();
    expect(totpStep(secret, 'abcdef')).toBeNull();
    const { otpauthUrl, qrCode } = await totpEnrolment(secret, 'a@example.test', 'momo-payments (Shop)');
    expect(otpauthUrl).toContain(`secret=${secret}`);
    expect(qrCode).toMatch(/^data:image\/svg\+xml;base64,/);
  });

  it('passwords: argon2id, and an absent hash never matches', async () => {
    const hash = await hashPassword('correct horse battery staple');
    expect(hash).toMatch(/^\$argon2id\$/);
    expect(await verifyPassword(hash, 'correct horse battery staple')).toBe(true);
    expect(await verifyPassword(hash, 'wrong')).toBe(false);
    expect(await verifyPassword(null, 'anything')).toBe(false);
  });

  it('the CSP allows nothing inline and nothing from elsewhere', () => {
    const d = dashboardCsp.directives;
    expect(d.scriptSrc).toEqual(["'self'"]);
    expect(d.styleSrc).toEqual(["'self'"]);
    expect(d.frameAncestors).toEqual(["'none'"]);
    expect(d.objectSrc).toEqual(["'none'"]);
    expect(d.baseUri).toEqual(["'none'"]);
  });

  it('a link token never reaches a log line', () => {
    const t = newToken();
    expect(maskText(`/dashboard/api/invitations/${t}/accept`)).toBe(
      '/dashboard/api/invitations/[redacted]/accept',
    );
    expect(maskText(`/dashboard/reset-password/${t}`)).toBe('/dashboard/reset-password/[redacted]');
    expect(maskText('/dashboard/api/team/invitations')).toBe('/dashboard/api/team/invitations');
  });
});
