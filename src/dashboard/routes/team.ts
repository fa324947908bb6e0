import { type Router, type Request } from 'express';
import { z } from 'zod';
import { ApiProblem } from '../../contract/problems';
import { parseOr400 } from '../../api/validate';
import { roles, type Role } from '../access/roles';
import { invitationLink, type InvitationRecord, type MemberRecord } from '../identity';
import { baseUrlOf, type DashboardDeps } from '../context';
import { limitStore, retryAfter } from './auth';
import { rateLimit } from 'express-rate-limit';
import { newRouter, route } from '../../api/routing';

// Members and invitations of the signed-in member's merchant. An admin may not touch an owner nor
// make one; a team always keeps an owner. Another merchant's member or invitation is a 404.

const memberOut = (m: MemberRecord) => ({
  id: m._id,
  email: m.email,
  name: m.name,
  role: m.role,
  totpEnabled: m.totpSecret !== null,
  createdAt: m.createdAt.toISOString(),
});

export function teamRoutes(deps: DashboardDeps): Router {
  const router = newRouter('/dashboard/api');
  const { members, invitations, mailer } = deps.identity;

  const actor = (req: Request) => req.member!;
  /** The target member, in the actor's merchant only. */
  const target = async (req: Request): Promise<MemberRecord> => {
    const m = await members.get(String(req.params.id));
    if (!m || m.merchantId !== actor(req).merchantId) throw new ApiProblem('NOT_FOUND');
    return m;
  };
  const owners = async (merchantId: string) =>
    (await members.ofMerchant(merchantId)).filter((m) => m.role === 'owner');
  const mayGrant = (actorRole: Role, role: Role) => role !== 'owner' || actorRole === 'owner';

  route(router, 'GET /dashboard/api/team/members', async (req, res) => {
    res.json({ data: (await members.ofMerchant(actor(req).merchantId)).map(memberOut) });
  });

  route(router, 'PATCH /dashboard/api/team/members/:id', async (req, res) => {
    const { role } = parseOr400(z.strictObject({ role: z.enum(roles) }), req.body, req);
    const m = await target(req);
    if ((m.role === 'owner' && actor(req).role !== 'owner') || !mayGrant(actor(req).role, role))
      throw new ApiProblem('OWNER_PROTECTED');
    if (m.role === 'owner' && role !== 'owner' && (await owners(m.merchantId)).length <= 1)
      throw new ApiProblem('OWNER_PROTECTED');
    // A new role ends the member's sessions (their epoch moves): the next page load signs in again.
    if (m.role !== role) await members.setRole(m, role);
    res.json(memberOut({ ...m, role }));
  });

  route(router, 'DELETE /dashboard/api/team/members/:id', async (req, res) => {
    const m = await target(req);
    if (m.role === 'owner' && actor(req).role !== 'owner') throw new ApiProblem('OWNER_PROTECTED');
    if (m.role === 'owner' && (await owners(m.merchantId)).length <= 1)
      throw new ApiProblem('OWNER_PROTECTED');
    await members.remove(m);
    res.status(204).end();
  });

  const invitationOut = async (inv: InvitationRecord) => ({
    id: inv._id,
    email: inv.email,
    role: inv.role,
    state: await invitations.state(inv),
    createdAt: inv.createdAt.toISOString(),
    expiresAt: inv.expiresAt.toISOString(),
  });

  route(router, 'GET /dashboard/api/team/invitations', async (req, res) => {
    const list = await invitations.ofMerchant(actor(req).merchantId);
    res.json({ data: await Promise.all(list.map(invitationOut)) });
  });

  // Each invitation sends a mail: a bounded number per merchant per hour, counted by every replica.
  const invitationsPerHour = deps.signIn?.invitationsPerHour ?? 50;
  const invitationLimit = rateLimit({
    windowMs: 3_600_000,
    limit: invitationsPerHour,
    skip: () => invitationsPerHour === 0,
    standardHeaders: false,
    legacyHeaders: false,
    identifier: 'dashboard-invitations',
    ...limitStore(deps, 'dashboard-invitations'),
    keyGenerator: (req) => actor(req).merchantId,
    handler: (req, _res, next) =>
      next(new ApiProblem('RATE_LIMITED', { headers: retryAfter(req, 3_600_000) })),
  });

  route(router, 'POST /dashboard/api/team/invitations', invitationLimit, async (req, res) => {
    const body = parseOr400(
      z.strictObject({ email: z.string().trim().toLowerCase().email().max(254), role: z.enum(roles) }),
      req.body,
      req,
    );
    if (!mayGrant(actor(req).role, body.role)) throw new ApiProblem('OWNER_PROTECTED');
    if (!(await members.emailFree(body.email))) throw new ApiProblem('EMAIL_TAKEN');
    const { token, invitation } = await invitations.create({
      merchantId: actor(req).merchantId,
      email: body.email,
      role: body.role,
      invitedBy: actor(req).id,
    });
    const link = invitationLink(baseUrlOf(deps, req), token);
    await mailer.send({
      to: invitation.email,
      kind: 'invitation',
      subject: 'You are invited to a payments dashboard / Invitation au tableau de bord',
      text: `${actor(req).name} invites you (${body.role}); the link works once, for 7 days / vous invite (${body.role}) ; le lien sert une fois, pendant 7 jours :\n${link}\n`,
    });
    // The link is shown once to the inviter too: no SMTP relay yet (mail-outbox-before-smtp.md).
    res.status(201).json({ ...(await invitationOut(invitation)), link });
  });

  route(router, 'DELETE /dashboard/api/team/invitations/:id', async (req, res) => {
    const inv = await invitations.byId(String(req.params.id));
    if (!inv || inv.merchantId !== actor(req).merchantId) throw new ApiProblem('NOT_FOUND');
    if (inv.role === 'owner' && actor(req).role !== 'owner') throw new ApiProblem('OWNER_PROTECTED');
    await invitations.revoke(inv);
    res.status(204).end();
  });

  return router;
}
