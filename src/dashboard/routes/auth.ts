import { type Router, type Request, type Response } from 'express';
import { rateLimit, ipKeyGenerator, type AugmentedRequest, type Store } from 'express-rate-limit';
import { z } from 'zod';
import { ApiProblem } from '../../contract/problems';
import { parseOr400 } from '../../api/validate';
import { hashPassword, verifyPassword } from '../identity/passwords';
import { newTotpSecret, totpEnrolment, totpStep } from '../identity/totp';
import { EmailTakenError, memberView, normalizeEmail, resetLink, type MemberRecord } from '../identity';
import { sessionTokenOf } from '../access/sessions';
import { hashToken } from '../identity/tokens';
import { STEP_UP_MS } from '../../contract/access/roles';
import {
  baseUrlOf,
  clearSessionCookie,
  routeAudit,
  sessionView,
  setSessionCookie,
  type DashboardDeps,
} from '../context';
import { newRouter, route } from '../../api/routing';

// Sign-in, sign-out, TOTP, password reset and invitations (docs/dashboard.md). Sign-in answers
// the same 401 for an unknown address and a wrong password, after the same argon2 work.

const email = z.string().trim().toLowerCase().email().max(254);
/** NIST SP 800-63B: at least 12 characters asked of a new password, any characters, no rules. */
const newPassword = z.string().min(12).max(256);
const signInBody = z.strictObject({
  email,
  password: z.string().min(1).max(256),
  /** A TOTP code, or a recovery code (identity/recovery-codes.ts). */
  totp: z.string().trim().max(40).optional(),
});

export const retryAfter = (req: Request, fallbackMs: number): Record<string, string> => {
  const reset = (req as AugmentedRequest).rateLimit?.resetTime?.getTime() ?? Date.now() + fallbackMs;
  return { 'Retry-After': String(Math.max(1, Math.ceil((reset - Date.now()) / 1000))) };
};

/** Signs a member in: a new session (the one the request came with, if any, ends). */
async function openSession(deps: DashboardDeps, req: Request, res: Response, member: MemberRecord) {
  const previous = sessionTokenOf(req.headers.cookie);
  if (previous) await deps.identity.sessions.end(hashToken(previous));
  const token = await deps.identity.sessions.open(
    memberView(member),
    member.sessionEpoch,
    new Date(),
    String(req.headers['user-agent'] ?? ''),
  );
  setSessionCookie(res, token);
  const session = await deps.identity.sessions.resume(token);
  req.member = memberView(member);
  return sessionView(deps, member, session!);
}

/** A missing second factor is the sign-in's first step, not a failure the limits count. */
const succeeded = (_req: Request, res: Response): boolean =>
  res.statusCode < 400 || res.locals.countAsSuccess === true;

/** A rate limit's store: the shared one (every API replica counts together), else this process's memory. */
export const limitStore = (deps: DashboardDeps, name: string): { store?: Store } =>
  deps.limits ? { store: deps.limits.store(name) } : {};

const typedAddress = (req: Request): string => {
  const raw = (req.body as { email?: unknown } | undefined)?.email;
  return typeof raw === 'string' ? normalizeEmail(raw) : '';
};

/** How long a client address a member signed in from stays theirs (the account-wide limit spares it). */
const KNOWN_PLACE_MS = 30 * 24 * 3_600_000;

export function authRoutes(deps: DashboardDeps): Router {
  const router = newRouter('/dashboard/api');
  const { members, invitations, resets, sessions, mailer } = deps.identity;
  const lockAfter = deps.signIn?.lockAfter ?? 5;
  const lockMs = deps.signIn?.lockMs ?? 15 * 60_000;
  const failuresPerAddress = deps.signIn?.failuresPerAddressPerMinute ?? 20;
  const failuresPerAccount = deps.signIn?.failuresPerAccount ?? lockAfter * 4;
  const resetMailsPerAddress = deps.signIn?.resetMailsPerAddressPerMinute ?? 10;

  // Every sign-in limit counts what was typed, member or not, and answers before any lookup: a
  // member and a stranger get the same answers, headers and timing at every try
  // (docs/decisions/dashboard/sign-in-limits-and-lockout.md). Failures only, so a team behind one
  // NAT signing in is never throttled by its own successes. Counted in the shared store when wired.
  const failuresOnly = { skipSuccessfulRequests: true, requestWasSuccessful: succeeded } as const;
  const perAddress = rateLimit({
    windowMs: 60_000,
    limit: failuresPerAddress,
    skip: () => failuresPerAddress === 0,
    standardHeaders: false,
    legacyHeaders: false,
    identifier: 'dashboard-sign-in-address',
    ...limitStore(deps, 'dashboard-sign-in-address'),
    keyGenerator: (req) => ipKeyGenerator(req.ip ?? ''),
    ...failuresOnly,
    handler: (req, _res, next) => next(new ApiProblem('RATE_LIMITED', { headers: retryAfter(req, 60_000) })),
  });
  // Reset mail per client address: every request counts (each may send a message).
  const resetMail = rateLimit({
    windowMs: 60_000,
    limit: resetMailsPerAddress,
    skip: () => resetMailsPerAddress === 0,
    standardHeaders: false,
    legacyHeaders: false,
    identifier: 'dashboard-reset-mail',
    ...limitStore(deps, 'dashboard-reset-mail'),
    keyGenerator: (req) => ipKeyGenerator(req.ip ?? ''),
    handler: (req, _res, next) => next(new ApiProblem('RATE_LIMITED', { headers: retryAfter(req, 60_000) })),
  });
  const locked = (req: Request, _res: Response, next: (err: unknown) => void) =>
    next(new ApiProblem('SIGN_IN_LOCKED', { headers: retryAfter(req, lockMs) }));
  // Per typed address and client address: a throttle, not a lock. Whoever guesses from one place
  // is stopped there; the member signing in from elsewhere is not.
  const perAccountHere = rateLimit({
    windowMs: lockMs,
    limit: lockAfter,
    standardHeaders: false,
    legacyHeaders: false,
    identifier: 'dashboard-account-address',
    ...limitStore(deps, 'dashboard-account-address'),
    keyGenerator: (req) => `${typedAddress(req)}|${ipKeyGenerator(req.ip ?? '')}`,
    validate: { keyGeneratorIpFallback: false },
    ...failuresOnly,
    handler: locked,
  });
  // Per typed address from everywhere (guessing spread over many client addresses); a client
  // address the member signed in from lately is spared, so a botnet cannot lock them out of it.
  const knownPlaces = deps.limits?.counter('dashboard-known-place', KNOWN_PLACE_MS, { releases: false });
  const placeKey = (req: Request) => `${typedAddress(req)}|${ipKeyGenerator(req.ip ?? '')}`;
  const perAccount = rateLimit({
    windowMs: lockMs,
    limit: failuresPerAccount,
    standardHeaders: false,
    legacyHeaders: false,
    identifier: 'dashboard-account',
    ...limitStore(deps, 'dashboard-account'),
    keyGenerator: typedAddress,
    skip: async (req) => (knownPlaces ? (await knownPlaces.count(placeKey(req))).count > 0 : false),
    ...failuresOnly,
    handler: locked,
  });

  route(
    router,
    'POST /dashboard/api/auth/sign-in',
    perAddress,
    perAccountHere,
    perAccount,
    async (req, res) => {
      const body = parseOr400(signInBody, req.body, req);
      const member = await members.byEmail(body.email);
      // The password is checked even for an unknown account: every answer costs the same.
      const passwordOk = await verifyPassword(member?.passwordHash ?? null, body.password);
      if (!member || !passwordOk) {
        if (member) await routeAudit(deps, req, member, 'auth.sign-in-failed', 401);
        throw new ApiProblem('SIGN_IN_FAILED');
      }
      const secret = members.totpSecretOf(member);
      if (secret) {
        // A missing code is not a failure (the page asks for it next); a wrong one is.
        if (!body.totp) {
          res.locals.countAsSuccess = true;
          throw new ApiProblem('TOTP_REQUIRED');
        }
        // A TOTP code, or a recovery code in its place (each works once).
        const factor = await deps.identity.secondFactor(member, secret, body.totp);
        if (factor === null) {
          await routeAudit(deps, req, member, 'auth.sign-in-failed', 401);
          throw new ApiProblem('TOTP_INVALID');
        }
        if (factor === 'recovery') await routeAudit(deps, req, member, 'auth.recovery-code-used', 200);
      }
      if (deps.merchantActive && !(await deps.merchantActive(member.merchantId)))
        throw new ApiProblem('MERCHANT_SUSPENDED');
      await members.signedIn(member);
      if (knownPlaces && (await knownPlaces.count(placeKey(req))).count === 0)
        await knownPlaces.hit(placeKey(req));
      const view = await openSession(deps, req, res, member);
      await routeAudit(deps, req, member, 'auth.sign-in', 200, 'test');
      res.json(view);
    },
  );

  route(router, 'POST /dashboard/api/auth/sign-out', async (req, res) => {
    if (req.dashboardSessionId) await sessions.end(req.dashboardSessionId);
    clearSessionCookie(res);
    if (req.member) {
      const member = await members.get(req.member.id);
      if (member) await routeAudit(deps, req, member, 'auth.sign-out', 204, req.dashboardMode ?? null);
    }
    res.status(204).end();
  });

  route(router, 'POST /dashboard/api/auth/totp/setup', async (req, res) => {
    const member = await signedInMember(req);
    const secret = newTotpSecret();
    await members.setPendingTotp(member, secret);
    const issuer = `momo-payments (${(await deps.merchantName(member.merchantId)) ?? member.merchantId})`;
    res.json({ secret, ...(await totpEnrolment(secret, member.email, issuer)) });
  });

  route(router, 'POST /dashboard/api/auth/totp/enable', async (req, res) => {
    const member = await signedInMember(req);
    const { code } = parseOr400(z.strictObject({ code: z.string().trim().max(10) }), req.body, req);
    const pending = members.pendingTotpOf(member);
    const step = pending ? totpStep(pending, code) : null;
    if (!pending || step === null || !(await deps.identity.consumeTotpStep(member._id, step)))
      throw new ApiProblem('TOTP_INVALID');
    // Its recovery codes, shown this once (stored hashed): the way in without the phone.
    const { codes, hashes } = deps.identity.recoveryCodes.generate(member._id);
    await members.enableTotp(member, pending, hashes);
    res.json({ totpEnabled: true, recoveryCodes: codes });
  });

  // A second factor checked again: creating or revoking a live key needs one within STEP_UP_MS
  // (docs/decisions/dashboard/live-money-second-factor.md). The code's step is consumed, as at
  // sign-in: one code proves one thing. A wrong code counts as a failed sign-in (the lockout).
  route(router, 'POST /dashboard/api/auth/step-up', perAddress, async (req, res) => {
    const member = await signedInMember(req);
    const { totp } = parseOr400(z.strictObject({ totp: z.string().trim().max(10) }), req.body, req);
    const secret = members.totpSecretOf(member);
    if (!secret) throw new ApiProblem('TOTP_REQUIRED_FOR_LIVE');
    const step = totpStep(secret, totp);
    if (step === null || !(await deps.identity.consumeTotpStep(member._id, step))) {
      await members.failedSignIn(member, lockAfter, lockMs);
      await routeAudit(deps, req, member, 'auth.step-up-failed', 401, req.dashboardMode ?? null);
      throw new ApiProblem('TOTP_INVALID');
    }
    const at = new Date();
    await sessions.steppedUp(req.dashboardSessionId!, at);
    await routeAudit(deps, req, member, 'auth.step-up', 200, req.dashboardMode ?? null);
    res.json({ steppedUpUntil: new Date(at.getTime() + STEP_UP_MS).toISOString() });
  });

  // 202 whatever the address: the answer says nothing of who has an account.
  route(router, 'POST /dashboard/api/auth/password-reset', resetMail, async (req, res) => {
    const body = parseOr400(z.strictObject({ email }), req.body, req);
    const member = await members.byEmail(body.email);
    if (member) {
      const token = await resets.create(member);
      await mailer.send({
        to: member.email,
        kind: 'password-reset',
        subject: 'Reset your dashboard password / Réinitialisez votre mot de passe',
        text: `Reset your password (valid one hour, once) / Réinitialisez votre mot de passe (valable une heure, une fois) :\n${resetLink(baseUrlOf(deps, req), token)}\n`,
      });
    }
    res.status(202).json({ status: 'accepted' });
  });

  route(router, 'POST /dashboard/api/auth/password-reset/complete', perAddress, async (req, res) => {
    const body = parseOr400(
      z.strictObject({ token: z.string().max(100), password: newPassword }),
      req.body,
      req,
    );
    // Dead once used, and once the password changed since it was asked for (any other link used).
    const member = await resets.consume(body.token, (id) => members.get(id));
    if (!member) throw new ApiProblem('LINK_INVALID');
    // A new password ends every session of the member (its epoch moves) and every other link.
    await members.setPassword(member, await hashPassword(body.password));
    await routeAudit(deps, req, member, 'auth.password-reset', 204);
    res.status(204).end();
  });

  route(router, 'GET /dashboard/api/invitations/:token', async (req, res) => {
    const inv = await invitations.byToken(String(req.params.token));
    if (!inv || (await invitations.state(inv)) !== 'pending') throw new ApiProblem('LINK_INVALID');
    const inviter = inv.invitedBy === 'operator' ? null : await members.get(inv.invitedBy);
    res.json({
      email: inv.email,
      role: inv.role,
      merchant: { name: (await deps.merchantName(inv.merchantId)) ?? inv.merchantId },
      invitedBy: inviter ? inviter.name : null,
      expiresAt: inv.expiresAt.toISOString(),
    });
  });

  route(router, 'POST /dashboard/api/invitations/:token/accept', perAddress, async (req, res) => {
    const body = parseOr400(
      z.strictObject({ name: z.string().trim().min(1).max(100), password: newPassword }),
      req.body,
      req,
    );
    const inv = await invitations.byToken(String(req.params.token));
    if (!inv || (await invitations.state(inv)) !== 'pending') throw new ApiProblem('LINK_INVALID');
    if (!(await members.emailFree(inv.email))) throw new ApiProblem('EMAIL_TAKEN');
    const passwordHash = await hashPassword(body.password);
    // The compare-and-set: of two accepts racing, one inserts the use; the other finds it used.
    if (!(await invitations.consume(inv))) throw new ApiProblem('LINK_INVALID');
    let member: MemberRecord;
    try {
      member = await members.create({
        merchantId: inv.merchantId,
        email: inv.email,
        name: body.name,
        role: inv.role,
        passwordHash,
      });
    } catch (err) {
      if (err instanceof EmailTakenError) throw new ApiProblem('EMAIL_TAKEN');
      throw err;
    }
    const view = await openSession(deps, req, res, member);
    await routeAudit(deps, req, member, 'auth.invitation-accepted', 201, 'test');
    res.status(201).json(view);
  });

  async function signedInMember(req: Request): Promise<MemberRecord> {
    const member = req.member ? await members.get(req.member.id) : null;
    if (!member) throw new ApiProblem('SESSION_REQUIRED');
    return member;
  }

  return router;
}
