import { z } from 'zod';
import { defineOperations } from '../registry';
import {
  createStatementRequest,
  listStatementsQuery,
  statementDownloadQuery,
  statementPage,
  statementRecord,
} from '../../../contract/schemas/statements';
import * as ex from './examples';

// Statements of an account: POST /v1/statements, their list, a read, the signed download (docs/statements.md).

const statementId = { id: { description: 'The statement id (st_…)' } };

defineOperations(
  {
    method: 'post',
    path: '/v1/statements',
    operationId: 'createStatement',
    summary: 'Start a statement of an account',
    description:
      'Generates, in the background, the statement of one of your accounts over a period of at most 31 days ' +
      '(`from` inclusive, `to` exclusive): the opening balance, every entry with its transaction reference, ' +
      'type, operator reference, amount, fee, balance after and metadata, and the closing balance. Answers ' +
      '202 with the statement `pending`; read it with `GET /v1/statements/{id}` or wait for the ' +
      '`statement.ready` event. The same idempotency key answers the same statement.',
    tag: 'Statements',
    auth: true,
    idempotent: true,
    body: {
      schemas: [{ name: 'CreateStatementRequest', schema: createStatementRequest }],
      required: true,
      example: ex.statementRequestExample,
    },
    responses: {
      202: {
        description: 'The statement, pending',
        name: 'Statement',
        schema: statementRecord,
        example: ex.pendingStatementExample,
      },
      200: {
        description: 'The statement this idempotency key already started',
        name: 'Statement',
        schema: statementRecord,
      },
    },
    errors: ['ACCOUNT_NOT_FOUND'],
  },
  {
    method: 'get',
    path: '/v1/statements',
    operationId: 'listStatements',
    summary: 'List statements',
    description:
      "Every statement of the merchant in the key's mode, whoever started it (a team shares them), newest " +
      "first; only one account's with `accountId`. Each as `GET /v1/statements/{id}` reads it, with a fresh " +
      '`download` link once ready. Follow `nextCursor` until it is null.',
    tag: 'Statements',
    auth: true,
    query: listStatementsQuery,
    responses: {
      200: {
        description: 'A page of statements',
        name: 'StatementPage',
        schema: statementPage,
        example: { data: [ex.readyStatementExample], nextCursor: null },
      },
    },
  },
  {
    method: 'get',
    path: '/v1/statements/{id}',
    operationId: 'getStatement',
    summary: 'Read a statement',
    description:
      'Its status (`pending`, `ready`, `failed`) and, when ready, its balances and a `download` link valid ' +
      'for a limited time (15 minutes by default): read the statement again for a fresh link.',
    tag: 'Statements',
    auth: true,
    pathParams: statementId,
    responses: {
      200: {
        description: 'The statement',
        name: 'Statement',
        schema: statementRecord,
        example: ex.readyStatementExample,
      },
    },
    errors: ['STATEMENT_NOT_FOUND'],
  },
  {
    method: 'get',
    path: '/v1/statements/{id}/download',
    operationId: 'downloadStatement',
    summary: 'Download a statement (signed link)',
    description:
      'The link of `download.url`: its signature is the credential (no API key), it expires at ' +
      '`download.expiresAt`. CSV (RFC 4180, a header row, an `opening_balance` row, the entries, a ' +
      "`closing_balance` row, amounts in major units with the currency's decimals) or JSON.",
    tag: 'Statements',
    auth: false,
    pathParams: statementId,
    query: statementDownloadQuery,
    responses: {
      200: {
        description: 'The statement content',
        schema: z.string(),
        contentType: 'text/csv',
        example: ex.statementCsvExample,
      },
    },
    errors: ['DOWNLOAD_LINK_INVALID', 'STATEMENT_NOT_READY'],
  },
);
