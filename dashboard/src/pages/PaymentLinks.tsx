import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useNavigate, useParams } from 'react-router';
import type { Schemas } from '../api/dashboard';
import { api, apiBase, fieldErrors, unwrap } from '../api/http';
import { useAction, useCursorQuery } from '../actions';
import { CopyButton } from '../components/CopyButton';
import { ExportButton } from '../components/ExportButton';
import { SelectField, TextField } from '../components/Field';
import { Form } from '../components/Form';
import { ConfirmModal, Modal } from '../components/Modal';
import { Pager } from '../components/Pager';
import { ProblemAlert } from '../components/ProblemAlert';
import { Section } from '../components/Section';
import { Table } from '../components/Table';
import { maskPhone, useFormat } from '../format';
import { useFields } from '../hooks/useFields';
import { useCan, useSession } from '../session';
import { countries, currencyOf, type Country } from './transactions-model';

// Payment links (docs/payment-links.md, "In the dashboard"): the public API's own routes through the
// dashboard door, so the route table guards them and the audit log names each change; the form sends
// what the API's contract takes and shows its refusals next to the fields (no rule repeated here).

type PaymentLink = Schemas['PaymentLink'];
type CreateBody = Schemas['CreatePaymentLinkRequest'];

function LinkStatus(props: { status: PaymentLink['status'] }) {
  const { t } = useTranslation();
  // `inactive` reads as the merchant did it: deactivated.
  const look = props.status === 'active' ? 'success' : props.status === 'spent' ? 'completed' : 'failed';
  return <span className={`status status-${look}`}>{t(`paymentLinks.status.${props.status}`)}</span>;
}

/** The fixed amount, or the customer's choice between the link's bounds. */
function useAmountText() {
  const { t } = useTranslation();
  const f = useFormat();
  return (link: Pick<PaymentLink, 'amount' | 'currency'>) => {
    const a = link.amount;
    if (a.type === 'fixed') return f.amount(a.value, link.currency);
    if (a.min !== undefined && a.max !== undefined)
      return t('paymentLinks.between', {
        min: f.amount(a.min, link.currency),
        max: f.amount(a.max, link.currency),
      });
    if (a.min !== undefined) return t('paymentLinks.atLeast', { min: f.amount(a.min, link.currency) });
    if (a.max !== undefined) return t('paymentLinks.atMost', { max: f.amount(a.max, link.currency) });
    return t('paymentLinks.anyAmount');
  };
}

/** Opened → attempted → paid, with the share of openings that paid. */
function Funnel(props: { stats: PaymentLink['stats'] }) {
  const { t } = useTranslation();
  const f = useFormat();
  const { opened, attempted, paid } = props.stats;
  return (
    <>
      {t('paymentLinks.funnel', {
        opened: f.number(opened),
        attempted: f.number(attempted),
        paid: f.number(paid),
      })}
      {opened > 0 && (
        <span className="hint">
          {' '}
          ({t('paymentLinks.rate', { rate: f.percent(Math.min(1, paid / opened)) })})
        </span>
      )}
    </>
  );
}

const blank = {
  title: '',
  description: '',
  amountType: 'fixed' as 'fixed' | 'open',
  value: '',
  min: '',
  max: '',
  country: 'CI' as Country,
  usage: 'reusable' as 'reusable' | 'single',
  expiresAt: '',
};

/** A typed amount as the API takes it: whole units, spaces allowed; anything else is sent for the server to refuse. */
const amountOf = (typed: string): number | undefined => {
  const s = typed.replace(/[\s\u00a0]/g, '');
  return s === '' ? undefined : Number(s);
};

/** The fields a link's create and edit forms share, bounded as the API's contract bounds them. */
function useLinkFields() {
  const { t } = useTranslation();
  return {
    title: { label: t('paymentLinks.titleField'), required: true, maxLength: 100 },
    description: {
      label: t('paymentLinks.description'),
      hint: t('paymentLinks.descriptionHint'),
      maxLength: 1000,
    },
    expiresAt: {
      label: t('paymentLinks.expiresAt'),
      hint: t('paymentLinks.expiresHint'),
      type: 'datetime-local',
    },
  };
}

function CreateLink() {
  const { t } = useTranslation();
  const fields = useLinkFields();
  const navigate = useNavigate();
  const client = useQueryClient();
  const create = useAction(
    (body: CreateBody, key: string) =>
      unwrap(api.POST('/v1/payment-links', { params: { header: { 'X-Idempotency-Key': key } }, body })),
    (link) => {
      void client.invalidateQueries({ queryKey: ['payment-links'] });
      void navigate(`/payment-links/${encodeURIComponent(link.id)}`);
    },
  );
  const form = useFields(blank, create.error);
  const v = form.values;
  const errors = fieldErrors(create.error);
  const currency = currencyOf[v.country];
  const submit = () => {
    const amount: CreateBody['amount'] =
      v.amountType === 'fixed'
        ? { type: 'fixed', value: amountOf(v.value) ?? Number.NaN }
        : {
            type: 'open',
            ...(amountOf(v.min) !== undefined ? { min: amountOf(v.min) } : {}),
            ...(amountOf(v.max) !== undefined ? { max: amountOf(v.max) } : {}),
          };
    create.run({
      title: v.title,
      ...(v.description.trim() ? { description: v.description } : {}),
      amount,
      currency,
      countries: [v.country],
      usage: v.usage,
      // A local date and time as typed, sent as the instant it names.
      ...(v.expiresAt ? { expiresAt: new Date(v.expiresAt).toISOString() } : {}),
    });
  };
  return (
    <Section title={t('paymentLinks.create')}>
      <Form
        onSubmit={submit}
        className="form-grid"
        submit={t('paymentLinks.createSubmit')}
        disabled={!v.title.trim() || create.isPending}
      >
        <TextField {...fields.title} {...form.bind('title')} />
        <TextField {...fields.description} {...form.bind('description')} />
        <SelectField
          label={t('fields.country')}
          hint={t('paymentLinks.currencyHint', { currency })}
          choices={countries.map((c) => ({ value: c, label: t(`countries.${c}`) }))}
          {...form.bind('country')}
          error={errors['countries.0'] ?? errors.countries ?? errors.currency}
        />
        <SelectField
          label={t('paymentLinks.amountType')}
          choices={[
            { value: 'fixed', label: t('paymentLinks.fixed') },
            { value: 'open', label: t('paymentLinks.open') },
          ]}
          {...form.bind('amountType')}
        />
        {v.amountType === 'fixed' ? (
          <TextField
            label={t('fields.amountIn', { currency })}
            inputMode="numeric"
            required
            {...form.bind('value')}
            error={errors['amount.value'] ?? errors.amount}
          />
        ) : (
          <>
            <TextField
              label={t('paymentLinks.min', { currency })}
              hint={t('paymentLinks.boundHint')}
              inputMode="numeric"
              {...form.bind('min')}
              error={errors['amount.min']}
            />
            <TextField
              label={t('paymentLinks.max', { currency })}
              hint={t('paymentLinks.boundHint')}
              inputMode="numeric"
              {...form.bind('max')}
              error={errors['amount.max']}
            />
          </>
        )}
        <SelectField
          label={t('paymentLinks.usage')}
          choices={[
            { value: 'reusable', label: t('paymentLinks.reusable') },
            { value: 'single', label: t('paymentLinks.single') },
          ]}
          {...form.bind('usage')}
        />
        <TextField {...fields.expiresAt} {...form.bind('expiresAt')} />
      </Form>
      <ProblemAlert
        error={create.error}
        shownFields={['title', 'description', 'value', 'min', 'max', 'expiresAt', 'countries.0', 'amount']}
      />
    </Section>
  );
}

export function PaymentLinks() {
  const { t } = useTranslation();
  const f = useFormat();
  const session = useSession();
  const can = useCan();
  const amountText = useAmountText();
  const { query: list, pages } = useCursorQuery(['payment-links', session.mode], (cursor) =>
    unwrap(api.GET('/v1/payment-links', { params: { query: { limit: 20, ...(cursor ? { cursor } : {}) } } })),
  );
  const links = list.data?.data ?? [];
  return (
    <>
      <h1>{t('paymentLinks.title')}</h1>
      <p>{t('paymentLinks.intro')}</p>
      {can('developer') && <CreateLink />}
      <Section title={t('paymentLinks.list')}>
        <ProblemAlert error={list.error} />
        <Table
          caption={t('paymentLinks.caption')}
          headers={[
            t('paymentLinks.titleField'),
            t('fields.amount'),
            t('fields.status'),
            t('fields.createdAt'),
            t('paymentLinks.payments'),
            t('paymentLinks.collected'),
            t('paymentLinks.conversion'),
          ]}
          empty={list.isSuccess && links.length === 0 && t('paymentLinks.none')}
          busy={list.isFetching}
        >
          {links.map((link) => (
            <tr key={link.id}>
              <td>
                <Link to={`/payment-links/${encodeURIComponent(link.id)}`}>{link.title}</Link>
              </td>
              <td>{amountText(link)}</td>
              <td>
                <LinkStatus status={link.status} />
              </td>
              <td>{f.dateTime(link.createdAt)}</td>
              <td>{f.number(link.stats.paid)}</td>
              <td>{f.amount(link.stats.paidTotal, link.currency)}</td>
              <td>
                <Funnel stats={link.stats} />
              </td>
            </tr>
          ))}
        </Table>
        <Pager label={t('paymentLinks.pages')} pages={pages} nextCursor={list.data?.nextCursor} />
      </Section>
    </>
  );
}

/** The payins under the link, newest first, each leading to its transaction page. */
function LinkPayments(props: { link: PaymentLink }) {
  const { t } = useTranslation();
  const f = useFormat();
  const id = props.link.id;
  const { query, pages } = useCursorQuery(['payment-link-payments', id], (cursor) =>
    unwrap(
      api.GET('/v1/payment-links/{id}/payments', {
        params: { path: { id }, query: { limit: 20, ...(cursor ? { cursor } : {}) } },
      }),
    ),
  );
  const rows = query.data?.data ?? [];
  return (
    <Section title={t('paymentLinks.payments')}>
      <ExportButton path={`/payment-links/${encodeURIComponent(id)}/export`} />
      <ProblemAlert error={query.error} />
      <Table
        caption={t('paymentLinks.paymentsCaption')}
        headers={[
          t('fields.reference'),
          t('fields.status'),
          t('fields.amount'),
          t('fields.phone'),
          t('fields.date'),
        ]}
        empty={query.isSuccess && rows.length === 0 && t('paymentLinks.noPayments')}
        busy={query.isFetching}
      >
        {rows.map((p) => (
          <tr key={p.id}>
            <td>
              <Link to={`/transactions/payin/${encodeURIComponent(p.reference)}`}>{p.reference}</Link>
            </td>
            <td>
              <span className={`status status-${p.status}`}>
                {t(`statuses.${p.status}`, { defaultValue: p.status })}
              </span>
            </td>
            <td>{f.amount(p.amount, p.currency)}</td>
            <td>{'customer' in p ? maskPhone(p.customer.phoneNumber) : '—'}</td>
            <td>{f.dateTime(p.createdAt)}</td>
          </tr>
        ))}
      </Table>
      <Pager label={t('paymentLinks.paymentPages')} pages={pages} nextCursor={query.data?.nextCursor} />
    </Section>
  );
}

/** Asked first, like every change that cannot be undone. */
/** An instant as a datetime-local field shows it: the browser's local time, to the minute. */
function localInput(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/**
 * What a link's owner may change after sharing it (PATCH /v1/payment-links/{id}): the words and the
 * expiry. Only the fields changed are sent, an emptied one as null (cleared).
 */
function EditLink(props: { link: PaymentLink }) {
  const { t } = useTranslation();
  const fields = useLinkFields();
  const client = useQueryClient();
  const [open, setOpen] = useState(false);
  const { link } = props;
  const initial = {
    title: link.title,
    description: link.description ?? '',
    thankYouMessage: link.thankYouMessage ?? '',
    expiresAt: localInput(link.expiresAt),
  };
  const save = useAction(
    (body: Schemas['UpdatePaymentLinkRequest'], _key: string) =>
      unwrap(api.PATCH('/v1/payment-links/{id}', { params: { path: { id: link.id } }, body })),
    (changed) => {
      client.setQueryData(['payment-link', link.id], changed);
      void client.invalidateQueries({ queryKey: ['payment-links'] });
      setOpen(false);
    },
  );
  const form = useFields(initial, save.error);
  const v = form.values;
  /** A text field's change: undefined when unchanged, null when emptied (cleared). */
  const changed = (now: string, before: string) => (now.trim() === before ? undefined : now.trim() || null);
  const description = changed(v.description, initial.description);
  const thankYouMessage = changed(v.thankYouMessage, initial.thankYouMessage);
  const changes: Schemas['UpdatePaymentLinkRequest'] = {
    ...(v.title.trim() !== initial.title ? { title: v.title.trim() } : {}),
    ...(description !== undefined ? { description } : {}),
    ...(thankYouMessage !== undefined ? { thankYouMessage } : {}),
    ...(v.expiresAt !== initial.expiresAt
      ? { expiresAt: v.expiresAt ? new Date(v.expiresAt).toISOString() : null }
      : {}),
  };
  return (
    <>
      <button
        type="button"
        onClick={() => {
          form.reset(initial);
          save.reset();
          setOpen(true);
        }}
      >
        {t('paymentLinks.edit')}
      </button>
      <Modal open={open} onClose={() => setOpen(false)} title={t('paymentLinks.editTitle')}>
        <p className="hint">{t('paymentLinks.editHint')}</p>
        <Form
          onSubmit={() => save.run(changes)}
          submit={t('paymentLinks.editSubmit')}
          disabled={!v.title.trim() || Object.keys(changes).length === 0 || save.isPending}
        >
          <TextField {...fields.title} {...form.bind('title')} />
          <TextField {...fields.description} {...form.bind('description')} />
          <TextField
            label={t('paymentLinks.thankYou')}
            hint={t('paymentLinks.thankYouHint')}
            maxLength={500}
            {...form.bind('thankYouMessage')}
          />
          <TextField {...fields.expiresAt} {...form.bind('expiresAt')} />
          <ProblemAlert
            error={save.error}
            shownFields={['title', 'description', 'thankYouMessage', 'expiresAt']}
          />
        </Form>
      </Modal>
    </>
  );
}

function Deactivate(props: { link: PaymentLink }) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const [asking, setAsking] = useState(false);
  const id = props.link.id;
  const deactivate = useAction(
    (_: void, key: string) =>
      unwrap(
        api.POST('/v1/payment-links/{id}/deactivate', {
          params: { path: { id }, header: { 'X-Idempotency-Key': key } },
        }),
      ),
    (link) => {
      client.setQueryData(['payment-link', id], link);
      void client.invalidateQueries({ queryKey: ['payment-links'] });
      setAsking(false);
    },
  );
  return (
    <>
      <button type="button" className="button-danger" onClick={() => setAsking(true)}>
        {t('paymentLinks.deactivate')}
      </button>
      <ConfirmModal
        open={asking}
        title={t('paymentLinks.deactivateTitle')}
        confirmLabel={t('paymentLinks.deactivateSubmit')}
        danger
        action={deactivate}
        onConfirm={() => deactivate.run()}
        onClose={() => {
          deactivate.reset();
          setAsking(false);
        }}
      >
        <p>{t('paymentLinks.deactivateConfirm', { title: props.link.title })}</p>
      </ConfirmModal>
    </>
  );
}

export function PaymentLinkDetail() {
  const { t, i18n } = useTranslation();
  const f = useFormat();
  const can = useCan();
  const amountText = useAmountText();
  const { id = '' } = useParams();
  const query = useQuery({
    queryKey: ['payment-link', id],
    queryFn: () => unwrap(api.GET('/v1/payment-links/{id}', { params: { path: { id } } })),
  });
  const link = query.data;
  const lang = (i18n.resolvedLanguage ?? 'en').startsWith('fr') ? 'fr' : 'en';
  const qr = `${apiBase}/v1/payment-links/${encodeURIComponent(id)}/qr`;
  return (
    <>
      <p>
        <Link to="/payment-links">{t('paymentLinks.back')}</Link>
      </p>
      <h1>{link?.title ?? t('paymentLinks.title')}</h1>
      <ProblemAlert error={query.error} />
      {query.isPending && <p>{t('common.loading')}</p>}
      {link && (
        <>
          <dl className="summary">
            <dt>{t('fields.status')}</dt>
            <dd>
              <LinkStatus status={link.status} />
            </dd>
            <dt>{t('fields.amount')}</dt>
            <dd>{amountText(link)}</dd>
            <dt>{t('paymentLinks.usage')}</dt>
            <dd>{t(`paymentLinks.${link.usage}`)}</dd>
            <dt>{t('fields.createdAt')}</dt>
            <dd>{f.dateTime(link.createdAt)}</dd>
            {link.expiresAt && (
              <>
                <dt>{t('paymentLinks.expiresAt')}</dt>
                <dd>{f.dateTime(link.expiresAt)}</dd>
              </>
            )}
            {link.description && (
              <>
                <dt>{t('paymentLinks.description')}</dt>
                <dd>{link.description}</dd>
              </>
            )}
          </dl>
          {can('developer') && link.status !== 'inactive' && (
            <p className="actions">
              <EditLink link={link} />
              <Deactivate link={link} />
            </p>
          )}

          <Section title={t('paymentLinks.figures')}>
            <dl className="summary">
              <dt>{t('paymentLinks.opened')}</dt>
              <dd>{f.number(link.stats.opened)}</dd>
              <dt>{t('paymentLinks.attempted')}</dt>
              <dd>{f.number(link.stats.attempted)}</dd>
              <dt>{t('paymentLinks.paid')}</dt>
              <dd>{f.number(link.stats.paid)}</dd>
              <dt>{t('paymentLinks.collected')}</dt>
              <dd>{f.amount(link.stats.paidTotal, link.currency)}</dd>
            </dl>
            <p className="hint">{t('paymentLinks.figuresHint')}</p>
          </Section>

          <Section title={t('paymentLinks.share')}>
            <p>
              <code>{link.url}</code> <CopyButton value={link.url} label={t('paymentLinks.copyUrl')} />
            </p>
            <p>
              <img
                className="qr-image"
                src={`${qr}?format=svg`}
                alt={t('paymentLinks.qrAlt')}
                width={192}
                height={192}
              />
            </p>
            <p>
              <a href={`${qr}?format=png`} download={`${link.id}.png`}>
                {t('paymentLinks.qrPng')}
              </a>
            </p>
            <h3>{t('paymentLinks.whatsapp')}</h3>
            <pre className="share">{link.share.whatsapp[lang]}</pre>
            <CopyButton value={link.share.whatsapp[lang]} label={t('paymentLinks.copyWhatsapp')} />
            <h3>{t('paymentLinks.sms')}</h3>
            <pre className="share">{link.share.sms[lang]}</pre>
            <CopyButton value={link.share.sms[lang]} label={t('paymentLinks.copySms')} />
          </Section>

          <LinkPayments link={link} />
        </>
      )}
    </>
  );
}
