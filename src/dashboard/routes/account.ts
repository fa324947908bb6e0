import type { Router, Request, Response } from 'express';
import { z } from 'zod';
import { ApiProblem } from '../../contract/problems';
import { parseOr400 } from '../../api/validate';
import { newRouter, route } from '../../api/routing';
import { deviceOf, publicSessionId } from '../access/sessions';
import { hashPassword, verifyPassword } from '../identity/passwords';
import { totpStep } from '../identity/totp';
import type { MemberRecord } from '../identity';
import {
  routeAudit,
  sessionView,
  setSessionCookie,
  clearSessionCookie,
  type DashboardDeps,
} from '../context';

// The signed-in member's own account (docs/dashboard.md, Account): password change, recovery
// codes, the list of their sessions and "sign out everywhere"; and the owner's team setting that
// requires TOTP of every member. Decisions: docs/decisions/dashboard/password-change-and-sessions.md,
// totp-recovery-codes.md, require-totp-for-all-members.md.

/** NIST SP 800-63B: at least 12 characters asked of a new password, any characters, no rules. */
const newPassword = z.string().min(12).max(256);
const passwordBody = z.strictObject({
  currentPassword: z.string().min(1).max(256),
  newPassword,
});
const codeBody = z.strictObject({ code: z.string().trim().max(10) });
const keepCurrentQuery = z.strictObject({ keepCurrent: z.enum(['true', 'false']).optional() });

export function accountRoutes(deps: DashboardDeps): Router {
  const router = newRouter('/dashboard/api');
  const { members, sessions, resets, mailer, recoveryCodes } = deps.identity;
  const lockAfter = deps.signIn?.lockAfter ?? 5;
  const lockMs = deps.signIn?.lockMs ?? 15 * 60_000;

  const current = async (req: Request): Promise<{ member: MemberRecord; sessionId: string }> => {
    const member = req.member ? await members.get(req.member.id) : null;
    if (!member || !req.dashboardSession) throw new ApiProblem('SESSION_REQUIRED');
    return { member, sessionId: req.dashboardSession._id };
  };
  const mode = (req: Request) => req.dashboardMode ?? null;

  route(router, 'GET /dashboard/api/account', async (req, res) => {
    const { member } = await current(req);
    res.json({
      member: { id: member._id, email: member.email, name: member.name, role: member.role },
      totpEnabled: member.totpSecret !== null,
      recoveryCodesRemaining: member.totpSecret ? await recoveryCodes.remaining(member) : 0,
      totpRequiredForTeam: (await deps.identity.settings.of(member.merchantId)).requireTotp,
    });
  });

  // A new password: the current one proves it is the member, not someone at an unlocked screen.
  route(router, 'POST /dashboard/api/account/password', async (req, res) => {
    const { member } = await current(req);
    const body = parseOr400(passwordBody, req.body, req);
    if (member.lockedUntil && member.lockedUntil.getTime() > Date.now()) {
      await routeAudit(deps, req, member, 'account.password-change-locked', 429, mode(req));
      const seconds = Math.ceil((member.lockedUntil.getTime() - Date.now()) / 1000);
      throw new ApiProblem('SIGN_IN_LOCKED', { headers: { 'Retry-After': String(seconds) } });
    }
    if (!(await verifyPassword(member.passwordHash, body.currentPassword))) {
      // A guess counts as a failed sign-in would: the stored lockout caps them.
      await members.failedSignIn(member, lockAfter, lockMs);
      await routeAudit(deps, req, member, 'account.password-change-refused', 403, mode(req));
      throw new ApiProblem('CURRENT_PASSWORD_INCORRECT');
    }
    const passwordHash = await hashPassword(body.newPassword);
    // Of a change and a reset (or two changes) from the same password racing, one passes.
    if (!(await resets.passwordChange(member))) throw new ApiProblem('CURRENT_PASSWORD_INCORRECT');
    // The epoch moves: every session of the member ends, and every reset link (bound to the old
    // password) is dead. This browser gets a new session, in the mode it was in.
    await members.setPassword(member, passwordHash);
    const updated = { ...member, passwordHash, sessionEpoch: member.sessionEpoch + 1 };
    const view = await renewSession(req, res, updated);
    await sessions.endAllOf(member._id, view.sessionId);
    await routeAudit(deps, req, member, 'account.password-changed', 200, mode(req));
    await mailer.send({
      to: member.email,
      kind: 'password-changed',
      subject: 'Your dashboard password was changed / Votre mot de passe a été changé',
      text:
        'The password of your payments dashboard account was just changed, and every other session was signed out. ' +
        'If it was not you, ask for a password reset from the sign-in page at once and tell an owner of your team.\n\n' +
        'Le mot de passe de votre compte du tableau de bord vient d’être changé, et toutes les autres sessions ont été fermées. ' +
        'Si ce n’est pas vous, demandez tout de suite une réinitialisation depuis la page de connexion et prévenez un propriétaire de votre équipe.\n',
    });
    res.json(view.session);
  });

  /** A new session for this browser under the member's new epoch, in the current mode. */
  async function renewSession(req: Request, res: Response, member: MemberRecord) {
    const previous = req.dashboardSession!;
    const token = await sessions.open(
      { id: member._id, merchantId: member.merchantId },
      member.sessionEpoch,
      new Date(),
      String(req.headers['user-agent'] ?? ''),
    );
    const session = (await sessions.resume(token))!;
    if (previous.mode !== session.mode) await sessions.setMode(session._id, previous.mode);
    await sessions.end(previous._id);
    setSessionCookie(res, token);
    return {
      sessionId: session._id,
      session: await sessionView(deps, member, { ...session, mode: previous.mode }),
    };
  }

  route(router, 'GET /dashboard/api/account/sessions', async (req, res) => {
    const { member, sessionId } = await current(req);
    const list = await sessions.ofMember(member._id, member.sessionEpoch);
    res.json({
      data: list.map((s) => ({
        id: publicSessionId(s._id),
        device: deviceOf(s.userAgent ?? ''),
        userAgent: s.userAgent ?? '',
        mode: s.mode,
        createdAt: s.createdAt.toISOString(),
        lastSeenAt: s.lastSeenAt.toISOString(),
        current: s._id === sessionId,
      })),
    });
  });

  // Sign out everywhere: every session of the member, this one too unless ?keepCurrent=true.
  route(router, 'DELETE /dashboard/api/account/sessions', async (req, res) => {
    const { member, sessionId } = await current(req);
    const { keepCurrent } = parseOr400(keepCurrentQuery, req.query, req);
    const keep = keepCurrent === 'true';
    const ended = await sessions.endAllOf(member._id, keep ? sessionId : undefined);
    if (!keep) clearSessionCookie(res);
    await routeAudit(
      deps,
      req,
      member,
      keep ? 'account.other-sessions-ended' : 'account.all-sessions-ended',
      200,
      mode(req),
    );
    res.json({ ended, signedOut: !keep });
  });

  route(router, 'DELETE /dashboard/api/account/sessions/:id', async (req, res) => {
    const { member, sessionId } = await current(req);
    const list = await sessions.ofMember(member._id, member.sessionEpoch);
    const target = list.find((s) => publicSessionId(s._id) === String(req.params.id));
    if (!target) throw new ApiProblem('NOT_FOUND');
    await sessions.end(target._id);
    if (target._id === sessionId) clearSessionCookie(res);
    await routeAudit(deps, req, member, 'account.session-ended', 204, mode(req));
    res.status(204).end();
  });

  route(router, 'GET /dashboard/api/account/recovery-codes', async (req, res) => {
    const { member } = await current(req);
    if (member.totpSecret === null) throw new ApiProblem('TOTP_SETUP_REQUIRED');
    res.json({ remaining: await recoveryCodes.remaining(member) });
  });

  // A new set of recovery codes (the old one void), shown once; a TOTP code proves the phone.
  route(router, 'POST /dashboard/api/account/recovery-codes', async (req, res) => {
    const { member } = await current(req);
    const { code } = parseOr400(codeBody, req.body, req);
    const secret = members.totpSecretOf(member);
    if (!secret) throw new ApiProblem('TOTP_SETUP_REQUIRED');
    const step = totpStep(secret, code);
    if (step === null || !(await deps.identity.consumeTotpStep(member._id, step))) {
      await routeAudit(deps, req, member, 'account.recovery-codes-refused', 401, mode(req));
      throw new ApiProblem('TOTP_INVALID');
    }
    const { codes, hashes } = recoveryCodes.generate(member._id);
    await members.setRecoveryCodes(member, hashes);
    await routeAudit(deps, req, member, 'account.recovery-codes-regenerated', 201, mode(req));
    res.status(201).json({ recoveryCodes: codes, remaining: codes.length });
  });

  return router;
}

/** The team's settings: every member with `team` reads them; only an owner changes them. */
export function teamSettingsRoutes(deps: DashboardDeps): Router {
  const router = newRouter('/dashboard/api');
  const { members, settings } = deps.identity;

  route(router, 'GET /dashboard/api/team/settings', async (req, res) => {
    res.json(await settings.of(req.member!.merchantId));
  });

  route(router, 'PUT /dashboard/api/team/settings', async (req, res) => {
    const body = parseOr400(z.strictObject({ requireTotp: z.boolean() }), req.body, req);
    const member = await members.get(req.member!.id);
    if (!member) throw new ApiProblem('SESSION_REQUIRED');
    if (member.role !== 'owner') throw new ApiProblem('ROLE_FORBIDDEN');
    // An owner who requires TOTP of everyone has it: they would otherwise lock themselves out.
    if (body.requireTotp && member.totpSecret === null) throw new ApiProblem('TOTP_SETUP_REQUIRED');
    const before = await settings.of(member.merchantId);
    await settings.set(member.merchantId, { requireTotp: body.requireTotp }, member._id);
    if (before.requireTotp !== body.requireTotp)
      await routeAudit(
        deps,
        req,
        member,
        body.requireTotp ? 'team.require-totp-on' : 'team.require-totp-off',
        200,
        req.dashboardMode ?? null,
      );
    res.json({ requireTotp: body.requireTotp });
  });

  return router;
}
