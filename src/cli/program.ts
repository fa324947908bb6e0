import { Command } from 'commander';
import { z } from 'zod';
import { currencies, toMajor, type Currency } from '../domain/money';
import type { Connection } from 'mongoose';
import { isLiveScope, modes, scopeOf, type Mode } from '../domain/modes';
import { Ledger } from '../ledger';
import { fundFromSandbox } from '../ledger/postings';
import { MerchantService, merchantIdSchema, type Merchant } from '../merchants';
import { parseMajorAmount } from './amount';
import { currencyByCountry } from '../domain/operators';
import { CliError, TimelineNotFoundError } from './errors';
import { TransactionStore } from '../persistence/transactions';
import { RefundStore } from '../persistence/refunds';
import { webhooksCommand } from './webhooks-listen';
import { usersCommand } from './users';
import { reconcileCommand } from './reconcile';
import { providerHealthCommand } from './provider-health';
import type { CliContext } from './context';

// The operator commands. Each prints a human-readable summary, or with --json exactly one JSON
// document on stdout (nothing else), so scripts can pipe it.

interface JsonFlag {
  json?: boolean;
}

/** A sandbox credit, as `accounts fund --json` prints it. */
interface Funded {
  merchantId: string;
  mode: 'test';
  accountId: string;
  currency: Currency;
  amount: number;
  balance: number;
  transferId: string;
  sourceRef: string;
  reason: string;
}

/** The currencies the service's countries pay in: what a new sandbox merchant is funded in. */
const localCurrencies = [...new Set(Object.values(currencyByCountry))];

export function buildProgram(ctx: CliContext): Command {
  const print = (json: boolean | undefined, value: unknown, human: () => string) =>
    ctx.stdout(json ? JSON.stringify(value, null, 2) : human());
  const merchantsService = async () => {
    const service = MerchantService.on(await ctx.mongo(), {
      keyMode: ctx.nodeEnv === 'production' ? 'live' : 'test',
    });
    await service.init();
    return service;
  };

  /**
   * A sandbox funding's checks (never in production, never on a database not marked as a sandbox,
   * an amount each currency can hold), then what credits each currency's test main account.
   */
  const fundingChecks = async (tool: string, amountText: string, toFund: readonly Currency[]) => {
    if (ctx.nodeEnv === 'production') {
      throw new CliError(`${tool} is a sandbox tool and is refused when NODE_ENV=production`);
    }
    const amounts = toFund.map((currency) => ({
      currency,
      amount: parseOrFail(() => parseMajorAmount(amountText, currency)),
    }));
    // The database says what it holds: an operator's shell without NODE_ENV must not mint money.
    const mode = await (await merchantsService()).deploymentMode();
    if (mode !== 'sandbox') {
      throw new CliError(
        `${tool} is a sandbox tool and this database is ${mode === 'live' ? 'a live deployment' : 'not marked as a sandbox'} (settings: deployment mode ${mode ?? 'unset'})`,
      );
    }
    const ledger = Ledger.on(await ctx.mongo());
    await ledger.init();
    return async (merchantId: string, reason: string): Promise<Funded[]> => {
      const funded: Funded[] = [];
      for (const { currency, amount } of amounts) {
        const result = await fundFromSandbox(ledger, {
          merchantId: scopeOf(merchantId, 'test'),
          currency,
          amount,
          reason,
          metadata: { by: 'cli' },
        });
        funded.push({
          merchantId,
          mode: 'test',
          accountId: result.accountId,
          currency,
          amount: toMajor(amount, currency),
          balance: toMajor(result.toBalance, currency),
          transferId: result.transferId,
          sourceRef: result.sourceRef,
          reason,
        });
      }
      return funded;
    };
  };

  const program = new Command('payments')
    .description('Operator CLI of the payments service: merchants, API keys, sandbox funding.')
    .showSuggestionAfterError(true);

  const merchants = program.command('merchants').description('Create, list and suspend merchants.');

  merchants
    .command('create')
    .description(
      'Create a merchant and its first API key pair in each mode, test and live (secrets are shown once).',
    )
    .requiredOption('--name <name>', "the merchant's name")
    .option(
      '--fund <amount>',
      'sandbox: also credit its test-mode XOF and XAF accounts with <amount> major units each (as accounts fund)',
    )
    .option(
      '--json',
      'print { merchantId, apiKey, apiClient (the test pair), live: { apiKey, apiClient } } as JSON (with --fund, funded: [...])',
    )
    .action(async (opts: { name: string; fund?: string } & JsonFlag) => {
      const service = await merchantsService();
      // Checked before the merchant exists: a refused funding leaves nothing half made.
      const fund =
        opts.fund === undefined
          ? null
          : await fundingChecks('merchants create --fund', opts.fund, localCurrencies);
      const issued = await service.createMerchant(opts.name);
      const { merchantId, apiKey, apiClient, live } = issued;
      const funded = fund ? await fund(merchantId, 'sandbox funding') : [];
      print(
        opts.json,
        {
          merchantId,
          apiKey,
          apiClient,
          live: { apiKey: live.apiKey, apiClient: live.apiClient },
          ...(fund ? { funded } : {}),
        },
        () =>
          [
            `Merchant ${merchantId} created.`,
            'Test mode (sandbox, simulated operators):',
            `  api_key     ${apiKey}`,
            `  api_client  ${apiClient}`,
            ...funded.map((f) => `  funded      ${f.amount} ${f.currency} (balance ${f.balance})`),
            'Live mode (real money):',
            `  api_key     ${live.apiKey}`,
            `  api_client  ${live.apiClient}`,
            'The api_client secrets are shown only now: store them safely.',
          ].join('\n'),
      );
    });

  merchants
    .command('list')
    .description('List every merchant.')
    .option('--json', 'print a JSON array')
    .action(async (opts: JsonFlag) => {
      const all = await (await merchantsService()).listMerchants();
      print(opts.json, all.map(publicMerchant), () => merchantTable(all));
    });

  merchants
    .command('suspend')
    .description('Suspend a merchant: every one of its keys gets 401 until it is reactivated.')
    .argument('<merchantId>')
    .option('--json', 'print the merchant as JSON')
    .action(async (id: string, opts: JsonFlag) => {
      const merchant = await (await merchantsService()).suspendMerchant(checkMerchantId(id));
      print(opts.json, publicMerchant(merchant), () => `Merchant ${merchant.id} suspended.`);
    });

  merchants
    .command('reactivate')
    .description('Reactivate a suspended merchant.')
    .argument('<merchantId>')
    .option('--json', 'print the merchant as JSON')
    .action(async (id: string, opts: JsonFlag) => {
      const merchant = await (await merchantsService()).reactivateMerchant(checkMerchantId(id));
      print(opts.json, publicMerchant(merchant), () => `Merchant ${merchant.id} is active.`);
    });

  merchants
    .command('configure')
    .description("Change a merchant's settings; transactions made before keep the ones they were made with.")
    .argument('<merchantId>')
    .option('--pay-fee <who>', 'who pays payin fees when a request does not say: merchant or customer')
    .option('--refund-window-days <days>', 'how long after success a payin stays refundable (0 to 365)')
    .option('--json', 'print the merchant as JSON')
    .action(async (id: string, opts: { payFee?: string; refundWindowDays?: string } & JsonFlag) => {
      if (opts.payFee !== undefined && !['merchant', 'customer'].includes(opts.payFee))
        throw new CliError('--pay-fee is merchant or customer');
      const merchant = await (
        await merchantsService()
      ).configure(checkMerchantId(id), {
        ...(opts.payFee !== undefined ? { payFee: opts.payFee === 'merchant' } : {}),
        ...(opts.refundWindowDays !== undefined ? { refundWindowDays: Number(opts.refundWindowDays) } : {}),
      });
      print(opts.json, publicMerchant(merchant), () => `Merchant ${merchant.id} configured.`);
    });

  const keys = program.command('keys').description('Rotate, revoke and list API key pairs.');

  keys
    .command('rotate')
    .description('Issue a new key pair of one mode; the previous pairs stay valid until revoked.')
    .argument('<merchantId>')
    .option('--mode <mode>', 'test or live: the mode of the new pair', 'test')
    .option('--json', 'print { merchantId, apiKey, apiClient } as JSON')
    .action(async (id: string, opts: { mode: string } & JsonFlag) => {
      const issued = await (await merchantsService()).rotateKeys(checkMerchantId(id), checkMode(opts.mode));
      print(opts.json, issued, () =>
        [
          `New key pair for ${issued.merchantId}:`,
          `  api_key     ${issued.apiKey}`,
          `  api_client  ${issued.apiClient}`,
          'The previous pairs stay valid until you revoke them (payments keys revoke <apiKey>).',
          'The api_client secret is shown only now: store it safely.',
        ].join('\n'),
      );
    });

  keys
    .command('revoke')
    .description('Revoke a key pair for good.')
    .argument('<apiKey>')
    .option('--json', 'print the key as JSON')
    .action(async (apiKey: string, opts: JsonFlag) => {
      const key = await (await merchantsService()).revokeKey(apiKey);
      print(
        opts.json,
        { apiKey: key.apiKey, merchantId: key.merchantId, status: key.status },
        () => `Key ${key.apiKey} of ${key.merchantId} revoked.`,
      );
    });

  keys
    .command('list')
    .description("List a merchant's key pairs (never their secrets).")
    .argument('<merchantId>')
    .option('--json', 'print a JSON array')
    .action(async (id: string, opts: JsonFlag) => {
      const list = await (await merchantsService()).listKeys(checkMerchantId(id));
      print(opts.json, list, () =>
        list.length === 0
          ? 'No keys.'
          : table(
              ['API KEY', 'MODE', 'STATUS', 'CREATED', 'LAST USED'],
              list.map((k) => [
                k.apiKey,
                k.mode,
                k.status,
                iso(k.createdAt),
                k.lastUsedAt ? iso(k.lastUsedAt) : '-',
              ]),
            ),
      );
    });

  const accounts = program.command('accounts').description('Merchant accounts (sandbox).');

  accounts
    .command('fund')
    .description(
      "Credit a merchant's test-mode main account from the sandbox funding account, as a ledger entry.",
    )
    .requiredOption('--merchant <merchantId>', 'the merchant to credit')
    .option('--mode <mode>', 'test (live is refused: live money only comes from operators)', 'test')
    .requiredOption('--currency <currency>', `one of ${currencies.join(', ')}`)
    .requiredOption('--amount <n>', 'amount in major units, e.g. 5000 (XOF) or 12.50 (USD)')
    .option('--reason <text>', 'why, recorded on the entry', 'sandbox funding')
    .option('--json', 'print the result as JSON')
    .action(
      async (
        opts: { merchant: string; mode: string; currency: string; amount: string; reason: string } & JsonFlag,
      ) => {
        // Play money exists only in test mode, whatever the deployment: a live account is real money.
        if (checkMode(opts.mode) === 'live') {
          throw new CliError(
            'accounts fund is a sandbox tool: live-mode accounts are never funded (use --mode test)',
          );
        }
        const merchantId = checkMerchantId(opts.merchant);
        const currency = checkCurrency(opts.currency);
        const reason = opts.reason.trim();
        if (!reason) throw new CliError('--reason must not be empty');
        const fund = await fundingChecks('accounts fund', opts.amount, [currency]);
        if (!(await (await merchantsService()).getMerchant(merchantId))) {
          throw new CliError(`no merchant ${merchantId}`);
        }
        const [out] = (await fund(merchantId, reason)) as [Funded];
        print(opts.json, out, () =>
          [
            `Credited ${out.amount} ${currency} to ${out.accountId} (${merchantId}).`,
            `  balance   ${out.balance} ${currency}`,
            `  transfer  ${out.transferId}`,
            `  reason    ${reason}`,
          ].join('\n'),
        );
      },
    );

  program
    .command('transactions')
    .description('Inspect transactions.')
    .command('show')
    .description(
      "A transaction's timeline: each step of its workflow with time and outcome, and its ledger entries.",
    )
    .argument('<reference>', "the merchant's reference (a refund: its rf_ reference)")
    .requiredOption('--merchant <merchantId>', 'the merchant that owns it')
    .option('--mode <mode>', 'test or live: the mode it was made in', 'test')
    .option('--kind <kind>', 'payin, payout or refund (found from the reference when omitted)')
    .option('--json', 'print the timeline as JSON')
    .action(async (reference: string, opts: { merchant: string; mode: string; kind?: string } & JsonFlag) => {
      const merchantId = scopeOfOption(opts.merchant, opts.mode);
      // Messages name the merchant as it was typed, with its mode, never the internal scope.
      const whose = `merchant ${opts.merchant} (${isLiveScope(merchantId) ? 'live' : 'test'} mode)`;
      let kind: TransactionKind;
      if (opts.kind !== undefined) {
        const parsed = z.enum(['payin', 'payout', 'refund']).safeParse(opts.kind);
        if (!parsed.success) throw new CliError('--kind must be payin, payout or refund');
        kind = parsed.data;
      } else kind = await kindOf(await ctx.mongo(), merchantId, reference, whose);
      if (!ctx.temporal) throw new CliError('no Temporal connection configured');
      // Loaded here: it brings Temporal's client and protobufs, which no other command needs.
      // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on use (tsx/cjs has no import() of .ts)
      const { renderTimeline, transactionTimeline } = require('./timeline') as typeof import('./timeline');
      const timeline = await transactionTimeline({
        temporal: await ctx.temporal(),
        mongo: await ctx.mongo(),
        merchantId,
        reference,
        kind,
      }).catch((err: unknown) => {
        if (err instanceof TimelineNotFoundError) throw new CliError(`no ${kind} ${reference} for ${whose}`);
        throw err;
      });
      print(opts.json, timeline, () => renderTimeline(timeline));
    });

  program.addCommand(webhooksCommand(ctx));
  program.addCommand(
    usersCommand(
      ctx,
      () => {
        if (!ctx.config) throw new CliError('users: no configuration (DATA_ENCRYPTION_KEYS)');
        return ctx.config.DATA_ENCRYPTION_KEYS;
      },
      { print, fail: (message) => new CliError(message) },
    ),
  );
  program.addCommand(reconcileCommand(ctx, { print, table, fail: (message) => new CliError(message) }));
  program.addCommand(providerHealthCommand(ctx, { print, table, fail: (message) => new CliError(message) }));

  // Commander's own `help [command]` reads one word, so `help merchants create` showed the group's
  // help: this one follows every word down to the command named.
  program.helpCommand(false);
  program
    .command('help')
    .description('display help for a command, e.g. `help merchants create`')
    .argument('[command...]', 'the command, with its group')
    .action((names: string[]) => {
      let command: Command = program;
      for (const name of names) {
        const sub = command.commands.find((c) => c.name() === name || c.aliases().includes(name));
        if (!sub) {
          const known = command.commands.map((c) => c.name()).join(', ');
          throw new CliError(
            `unknown command "${[...names.slice(0, names.indexOf(name)), name].join(' ')}"; commands${command === program ? '' : ` of ${command.name()}`}: ${known}`,
          );
        }
        command = sub;
      }
      command.outputHelp();
    });

  return program;
}

type TransactionKind = 'payin' | 'payout' | 'refund';

/**
 * What a reference is, from the merchant's own records: a payin or a payout by its reference, a
 * refund by its rf_ reference. None, or two of them, is a question for the operator (--kind).
 */
async function kindOf(
  mongo: Connection,
  merchantId: string,
  reference: string,
  whose: string,
): Promise<TransactionKind> {
  const transactions = TransactionStore.on(mongo);
  const [payin, payout, refund] = await Promise.all([
    transactions.find(merchantId, 'payin', reference),
    transactions.find(merchantId, 'payout', reference),
    reference.startsWith('rf_') ? RefundStore.on(mongo).find(merchantId, reference) : null,
  ]);
  const found = (
    [
      ['payin', payin],
      ['payout', payout],
      ['refund', refund],
    ] as const
  )
    .filter(([, record]) => record !== null)
    .map(([kind]) => kind);
  if (found.length === 1) return found[0]!;
  if (found.length > 1)
    throw new CliError(
      `${reference} is both a ${found.join(' and a ')} of ${whose}: pass --kind ${found.join(' or --kind ')}`,
    );
  throw new CliError(
    `no payin, payout or refund ${reference} for ${whose}; check --merchant and --mode, or pass --kind to read its workflow alone`,
  );
}

function checkMerchantId(id: string): string {
  if (!merchantIdSchema.safeParse(id).success) throw new CliError(`not a merchant id (mer_...): "${id}"`);
  return id;
}

/**
 * A merchant id and `--mode`, or a test scope as stores and logs write it (`mer_…_test`), which says
 * its mode itself.
 */
function scopeOfOption(id: string, mode: string): string {
  const merchantId = id.endsWith('_test') ? id.slice(0, -'_test'.length) : id;
  return scopeOf(checkMerchantId(merchantId), id === merchantId ? checkMode(mode) : 'test');
}

function checkMode(text: string): Mode {
  const parsed = z.enum(modes).safeParse(text.trim().toLowerCase());
  if (!parsed.success) throw new CliError(`--mode must be test or live, not "${text}"`);
  return parsed.data;
}

function checkCurrency(text: string): Currency {
  const parsed = z.enum(currencies).safeParse(text.trim().toUpperCase());
  if (!parsed.success) throw new CliError(`unknown currency "${text}"; one of ${currencies.join(', ')}`);
  return parsed.data;
}

function parseOrFail<T>(fn: () => T): T {
  try {
    return fn();
  } catch (err) {
    throw new CliError((err as Error).message);
  }
}

function publicMerchant(m: Merchant) {
  return {
    merchantId: m.id,
    name: m.name,
    status: m.status,
    settings: m.settings,
    createdAt: iso(m.createdAt),
  };
}

function merchantTable(all: Merchant[]): string {
  if (all.length === 0) return 'No merchants.';
  return table(
    ['MERCHANT', 'STATUS', 'CREATED', 'NAME'],
    all.map((m) => [m.id, m.status, iso(m.createdAt), m.name]),
  );
}

function iso(d: Date): string {
  return new Date(d).toISOString();
}

function table(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => (i === cells.length - 1 ? c : c.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return [line(head), ...rows.map(line)].join('\n');
}
