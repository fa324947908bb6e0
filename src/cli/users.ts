import { Command } from 'commander';
import { z } from 'zod';
import type { KeyRing } from '../security/key-ring';
import { MerchantService, merchantIdSchema } from '../merchants';
import { merchantOfScope } from '../domain/modes';
import { roles, type Role } from '../dashboard/access/roles';
import type { CliContext } from './context';

// Dashboard members from the operator's side: the first owner of a merchant is invited from here
// (owners invite the rest from the dashboard), and a member locked out of their mailbox gets a
// reset link. Links are printed once; only their hash is stored.

interface Helpers {
  print(json: boolean | undefined, value: unknown, human: () => string): void;
  fail(message: string): Error;
}

/** Where links point: PUBLIC_BASE_URL, else the API on this machine (`npm start`). */
export function dashboardBaseUrl(
  config: { PUBLIC_BASE_URL?: string | undefined; PORT: number } | undefined,
): string {
  return config?.PUBLIC_BASE_URL ?? `http://127.0.0.1:${config?.PORT ?? 3000}`;
}

export function usersCommand(ctx: CliContext, keys: () => KeyRing, h: Helpers): Command {
  // Loaded on use: the dashboard's identity brings its TOTP and QR code libraries.
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on use (tsx/cjs has no import() of .ts)
  const identityModule = () => require('../dashboard/identity') as typeof import('../dashboard/identity');
  const identity = async () => {
    const id = identityModule().DashboardIdentity.on(await ctx.mongo(), keys());
    await id.init();
    return id;
  };
  const merchantOf = async (raw: string): Promise<string> => {
    const parsed = merchantIdSchema.safeParse(raw);
    if (!parsed.success) throw h.fail(`--merchant: ${parsed.error.issues[0]?.message ?? 'invalid'}`);
    const id = merchantOfScope(parsed.data);
    const merchants = MerchantService.on(await ctx.mongo(), { keyMode: 'test' });
    if (!(await merchants.getMerchant(id))) throw h.fail(`no merchant ${id}`);
    return id;
  };
  const emailOf = (raw: string): string => {
    const parsed = z.string().trim().toLowerCase().email().safeParse(raw);
    if (!parsed.success) throw h.fail(`--email: not an email address`);
    return parsed.data;
  };

  const users = new Command('users').description('Dashboard members: invite, reset links.');
  users
    .command('invite')
    .description("Invite a member to a merchant's dashboard; prints a one-time link (valid 7 days).")
    .requiredOption('--merchant <id>', 'the merchant (mer_…)')
    .requiredOption('--email <address>', "the member's email address")
    .option('--role <role>', `one of ${roles.join(', ')}`, 'owner')
    .option('--json', 'print { link, expiresAt } as JSON')
    .action(async (opts: { merchant: string; email: string; role: string; json?: boolean }) => {
      if (!(roles as readonly string[]).includes(opts.role))
        throw h.fail(`--role: one of ${roles.join(', ')}`);
      const merchantId = await merchantOf(opts.merchant);
      const email = emailOf(opts.email);
      const id = await identity();
      if (!(await id.members.emailFree(email))) throw h.fail(`${email} already belongs to a dashboard team`);
      const { token, invitation } = await id.invitations.create({
        merchantId,
        email,
        role: opts.role as Role,
        invitedBy: 'operator',
      });
      const link = identityModule().invitationLink(dashboardBaseUrl(ctx.config), token);
      h.print(opts.json, { link, expiresAt: invitation.expiresAt.toISOString() }, () =>
        [
          `Invitation for ${email} (${opts.role}) to ${merchantId}:`,
          `  ${link}`,
          `It works once, until ${invitation.expiresAt.toISOString()}. Give it to that person only.`,
        ].join('\n'),
      );
    });
  users
    .command('reset-link')
    .description(
      "A one-time password-reset link for a member (valid one hour); it ends the member's sessions once used.",
    )
    .requiredOption('--merchant <id>', 'the merchant (mer_…)')
    .requiredOption('--email <address>', "the member's email address")
    .option('--json', 'print { link } as JSON')
    .action(async (opts: { merchant: string; email: string; json?: boolean }) => {
      const merchantId = await merchantOf(opts.merchant);
      const id = await identity();
      const member = await id.members.byEmail(emailOf(opts.email));
      if (!member || member.merchantId !== merchantId)
        throw h.fail(`no member ${opts.email} in ${merchantId}`);
      const link = identityModule().resetLink(dashboardBaseUrl(ctx.config), await id.resets.create(member));
      h.print(opts.json, { link }, () =>
        [`Password reset for ${member.email}:`, `  ${link}`, 'It works once, for one hour.'].join('\n'),
      );
    });
  return users;
}
