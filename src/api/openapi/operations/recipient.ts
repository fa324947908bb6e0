import { defineOperations } from '../registry';
import { recipientCheck } from '../../../contract/schemas/recipient';
import { recipientQuery } from '../../routes/recipient';

// GET /v1/providers/recipient (src/api/routes/recipient.ts).

defineOperations({
  method: 'get',
  path: '/v1/providers/recipient',
  operationId: 'checkRecipient',
  summary: 'Check a recipient before paying or asking to pay',
  description: `The provider the number belongs to, whether its account is active and, where the provider shares
it (MTN), the holder's name. Live mode asks the provider routed for the number's network (MTN account
holder checks, pawaPay predict-provider); test mode asks the sandbox, whose magic numbers (last four
digits) choose the answer: \`9911\` inactive account, \`9912\` active without a name, \`9913\` unknown to the
operator, \`9914\` check unavailable; any other number is an active account held by "Awa Koné".

When no provider check is offered for the number, or the provider does not answer, the answer still
carries the operator of the number's prefix (\`predictedBy: "prefix"\`) with \`checked: false\` and
\`active: null\`. Answers are reused for a short time (RECIPIENT_CACHE_TTL_SECONDS, in memory only) and
checks have their own budget per merchant and mode (RECIPIENT_CHECKS_PER_MINUTE, cached answers
included): beyond it, 429 with \`Retry-After\`. The answer is sent with \`Cache-Control: no-store\`.`,
  tag: 'Providers',
  auth: true,
  query: recipientQuery,
  responses: {
    200: {
      description: 'The predicted provider, the account status and the holder name where shared',
      name: 'RecipientCheck',
      schema: recipientCheck,
      example: {
        msisdn: '+2250500000001',
        country: 'CI',
        operator: 'MTN',
        provider: 'MTN_CI',
        predictedBy: 'provider',
        checked: true,
        active: true,
        holderName: 'Awa Koné',
        checkedAt: '2026-11-23T21:00:00.000Z',
        livemode: false,
      },
    },
  },
});
