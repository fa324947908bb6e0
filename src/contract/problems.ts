import { z } from 'zod';
import type { Text } from './i18n';

// The problem catalogue: every error the interface answers, as an RFC 9457 problem with a stable
// `code` and localized title and detail. Services throw ApiProblem; src/api/problem.ts renders it.
// English titles of the refund errors are the interface's own.

export interface Catalogue {
  status: number;
  title: Text;
  detail?: Text;
}

export const problemCatalogue = {
  VALIDATION_ERROR: {
    status: 400,
    title: { en: 'Invalid request', fr: 'Requête invalide' },
    detail: { en: 'One or more fields are invalid.', fr: 'Un ou plusieurs champs sont invalides.' },
  },
  MALFORMED_JSON: {
    status: 400,
    title: { en: 'Malformed JSON', fr: 'JSON mal formé' },
    detail: {
      en: 'The request body is not valid JSON.',
      fr: "Le corps de la requête n'est pas un JSON valide.",
    },
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    title: { en: 'Unsupported media type', fr: 'Type de contenu non pris en charge' },
    detail: { en: 'Send the body as application/json.', fr: 'Envoyez le corps en application/json.' },
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    title: { en: 'Payload too large', fr: 'Requête trop volumineuse' },
    detail: { en: 'The request body is too large.', fr: 'Le corps de la requête est trop volumineux.' },
  },
  UNAUTHORIZED: {
    status: 401,
    title: { en: 'Unauthorized', fr: 'Non autorisé' },
    detail: {
      en: 'Send Authorization: Basic base64(api_key:api_client) with valid credentials.',
      fr: 'Envoyez Authorization: Basic base64(api_key:api_client) avec des identifiants valides.',
    },
  },
  NOT_FOUND: {
    status: 404,
    title: { en: 'Not found', fr: 'Introuvable' },
    detail: { en: 'No such resource.', fr: "Cette ressource n'existe pas." },
  },
  METHOD_NOT_ALLOWED: {
    status: 405,
    title: { en: 'Method not allowed', fr: 'Méthode non autorisée' },
    detail: {
      en: 'This resource does not accept this method; see the Allow header.',
      fr: "Cette ressource n'accepte pas cette méthode ; voir l'en-tête Allow.",
    },
  },
  BATCH_NOT_FOUND: {
    status: 404,
    title: { en: 'Payout batch not found', fr: 'Lot de paiements introuvable' },
    detail: {
      en: 'No bulk payout of yours has this id.',
      fr: "Aucun de vos paiements groupés n'a cet identifiant.",
    },
  },
  BATCH_REFUSED: {
    status: 409,
    title: { en: 'Batch refused', fr: 'Lot refusé' },
    detail: {
      en: 'This item is valid, but another item of this atomic batch was refused, so none was paid.',
      fr: "Cet élément est valide, mais un autre élément de ce lot atomique a été refusé : aucun n'a été payé.",
    },
  },
  REPLAY_TOO_LARGE: {
    status: 422,
    title: { en: 'Replay too large', fr: 'Renvoi trop volumineux' },
    detail: {
      en: 'The period holds more than 10,000 events to send; replay it in shorter periods.',
      fr: 'La période contient plus de 10 000 événements à renvoyer ; renvoyez-la par périodes plus courtes.',
    },
  },
  STATEMENT_NOT_FOUND: {
    status: 404,
    title: { en: 'Statement not found', fr: 'Relevé introuvable' },
    detail: { en: 'No statement of yours has this id.', fr: "Aucun de vos relevés n'a cet identifiant." },
  },
  STATEMENT_NOT_READY: {
    status: 409,
    title: { en: 'Statement not ready', fr: 'Relevé pas encore prêt' },
    detail: {
      en: 'The statement is still being generated (or failed): read GET /v1/statements/{id} for its status.',
      fr: 'Le relevé est en cours de génération (ou a échoué) : consultez GET /v1/statements/{id}.',
    },
  },
  DOWNLOAD_LINK_INVALID: {
    status: 403,
    title: { en: 'Download link invalid', fr: 'Lien de téléchargement invalide' },
    detail: {
      en: 'This link is expired or was not issued by us: read the statement again for a new one.',
      fr: "Ce lien a expiré ou n'a pas été émis par nous : relisez le relevé pour en obtenir un nouveau.",
    },
  },
  ACCOUNT_NOT_FOUND: {
    status: 404,
    title: { en: 'Account not found', fr: 'Compte introuvable' },
    detail: { en: 'No account of yours has this id.', fr: "Aucun de vos comptes n'a cet identifiant." },
  },
  PAYMENT_NOT_FOUND: {
    status: 404,
    title: { en: 'Payment not found', fr: 'Paiement introuvable' },
    detail: { en: 'No payment has this reference.', fr: "Aucun paiement n'a cette référence." },
  },
  REFUND_NOT_FOUND: {
    status: 404,
    title: { en: 'Refund not found', fr: 'Remboursement introuvable' },
    detail: { en: 'No refund has this reference.', fr: "Aucun remboursement n'a cette référence." },
  },
  PAYOUT_NOT_FOUND: {
    status: 404,
    title: { en: 'Payout not found', fr: 'Transfert introuvable' },
    detail: { en: 'No payout has this reference.', fr: "Aucun transfert n'a cette référence." },
  },
  SESSION_NOT_FOUND: {
    status: 404,
    title: { en: 'Payment session not found', fr: 'Session de paiement introuvable' },
    detail: {
      en: 'This payment link is not valid.',
      fr: "Ce lien de paiement n'est pas valide.",
    },
  },
  SESSION_CLOSED: {
    status: 409,
    title: { en: 'Payment session closed', fr: 'Session de paiement close' },
    detail: {
      en: 'This payment no longer awaits your answer: it was already confirmed, declined, or it expired.',
      fr: "Ce paiement n'attend plus votre réponse : il a déjà été confirmé, refusé, ou il a expiré.",
    },
  },
  DUPLICATE_REFERENCE: {
    status: 409,
    title: { en: 'Duplicate reference', fr: 'Référence déjà utilisée' },
    detail: {
      en: 'This reference was already used for another transaction.',
      fr: 'Cette référence a déjà été utilisée pour une autre transaction.',
    },
  },
  PAYOUT_NOT_CANCELLABLE: {
    status: 409,
    title: { en: 'Payout cannot be cancelled', fr: 'Paiement sortant non annulable' },
    detail: {
      en: 'The payout was already sent to the operator, or has ended: only a payout not yet sent can be cancelled.',
      fr: "Le paiement sortant a déjà été transmis à l'opérateur, ou il est terminé : seul un paiement pas encore transmis peut être annulé.",
    },
  },
  SANDBOX_ONLY_IN_TEST_MODE: {
    status: 400,
    title: { en: 'Sandbox feature in live mode', fr: 'Fonction de bac à sable en mode réel' },
    detail: {
      en: 'sandboxScenario and sandbox funding exist only in test mode: call with your test key (mk_test_…).',
      fr: "sandboxScenario et l'approvisionnement de bac à sable n'existent qu'en mode test : appelez avec votre clé de test (mk_test_…).",
    },
  },
  TEST_MODE_ONLY: {
    status: 403,
    title: { en: 'Test mode only', fr: 'Mode test uniquement' },
    detail: {
      en: 'The sandbox test helpers (/v1/sandbox/...) act on test transactions only: call with your test key (mk_test_…).',
      fr: "Les outils de test du bac à sable (/v1/sandbox/...) n'agissent que sur les transactions de test : appelez avec votre clé de test (mk_test_…).",
    },
  },
  NOT_AT_OPERATOR_YET: {
    status: 503,
    title: { en: 'Not at the operator yet', fr: "Pas encore chez l'opérateur" },
    detail: {
      en: 'The operator has not received this transaction yet (it is sent moments after its creation). Retry after Retry-After with the same X-Idempotency-Key.',
      fr: "L'opérateur n'a pas encore reçu cette transaction (elle lui est envoyée peu après sa création). Réessayez après Retry-After avec la même X-Idempotency-Key.",
    },
  },
  ALREADY_FINAL: {
    status: 409,
    title: { en: 'Already final', fr: 'Déjà terminée' },
    detail: {
      en: 'This transaction already has its final outcome at the operator; nothing was changed.',
      fr: "Cette transaction a déjà son résultat définitif chez l'opérateur ; rien n'a été modifié.",
    },
  },
  IDEMPOTENCY_KEY_MISSING: {
    status: 400,
    title: { en: 'Idempotency key missing', fr: "Clé d'idempotence manquante" },
    detail: {
      en: 'Every POST needs an X-Idempotency-Key header holding a UUID.',
      fr: 'Chaque POST exige un en-tête X-Idempotency-Key contenant un UUID.',
    },
  },
  IDEMPOTENCY_KEY_INVALID: {
    status: 400,
    title: { en: 'Invalid idempotency key', fr: "Clé d'idempotence invalide" },
    detail: {
      en: 'X-Idempotency-Key must be a UUID such as 3f2b8c1e-9d4a-4e7b-8a61-0c5d2e9f7a14.',
      fr: 'X-Idempotency-Key doit être un UUID tel que 3f2b8c1e-9d4a-4e7b-8a61-0c5d2e9f7a14.',
    },
  },
  IDEMPOTENCY_KEY_REUSED: {
    status: 409,
    title: { en: 'Idempotency key reused', fr: "Clé d'idempotence réutilisée" },
    detail: {
      en: 'This X-Idempotency-Key was already used for a different request; use a new key.',
      fr: 'Cette X-Idempotency-Key a déjà servi pour une autre requête ; utilisez une nouvelle clé.',
    },
  },
  REQUEST_IN_PROGRESS: {
    status: 409,
    title: { en: 'Request in progress', fr: 'Requête en cours' },
    detail: {
      en: 'A request with this X-Idempotency-Key is still being processed; retry shortly.',
      fr: 'Une requête avec cette X-Idempotency-Key est encore en cours ; réessayez dans un instant.',
    },
  },
  RATE_LIMITED: {
    status: 429,
    title: { en: 'Too many requests', fr: 'Trop de requêtes' },
    detail: {
      en: 'Request rate limit reached; retry after the delay in Retry-After.',
      fr: 'Limite de requêtes atteinte ; réessayez après le délai indiqué par Retry-After.',
    },
  },
  INVALID_AMOUNT: {
    status: 400,
    title: { en: 'Invalid amount', fr: 'Montant invalide' },
    detail: {
      en: 'The amount is greater than the original payment allows.',
      fr: 'Le montant dépasse ce que permet le paiement initial.',
    },
  },
  REFUND_NOT_ALLOWED: {
    status: 403,
    title: { en: 'Refund not allowed', fr: 'Remboursement non autorisé' },
    detail: { en: 'This transaction is not refundable.', fr: "Cette transaction n'est pas remboursable." },
  },
  DUPLICATE_REFUND: {
    status: 409,
    title: { en: 'Duplicate refund', fr: 'Remboursement en double' },
    detail: {
      en: 'This refund was already attempted; use a different idempotency key.',
      fr: "Ce remboursement a déjà été tenté ; utilisez une autre clé d'idempotence.",
    },
  },
  INSUFFICIENT_BALANCE: {
    status: 403,
    title: { en: 'Insufficient balance', fr: 'Solde insuffisant' },
    detail: {
      en: 'The account balance does not cover this operation.',
      fr: 'Le solde du compte ne couvre pas cette opération.',
    },
  },
  OTP_REQUIRED: {
    status: 400,
    title: { en: 'OTP required', fr: 'OTP requis' },
    detail: {
      en: 'This operator needs the OTP the customer obtains by dialling #144*82#; send it in payin.otp.',
      fr: "Cet opérateur exige l'OTP que le client obtient en composant le #144*82# ; envoyez-le dans payin.otp.",
    },
  },
  MSISDN_PROVIDER_MISMATCH: {
    status: 400,
    title: { en: 'Number of another operator', fr: "Numéro d'un autre opérateur" },
    detail: {
      en: 'The phone number belongs to another operator than the chosen provider.',
      fr: 'Le numéro de téléphone appartient à un autre opérateur que celui choisi.',
    },
  },
  AMOUNT_OUT_OF_RANGE: {
    status: 400,
    title: { en: 'Amount out of range', fr: 'Montant hors limites' },
    detail: {
      en: "The amount is outside the provider's limits (see GET /v1/providers).",
      fr: "Le montant est hors des limites de l'opérateur (voir GET /v1/providers).",
    },
  },
  OPERATOR_SIGNATURE_INVALID: {
    status: 401,
    title: { en: 'Invalid signature', fr: 'Signature invalide' },
    detail: {
      en: 'X-Operator-Signature is missing, wrong or too old.',
      fr: 'X-Operator-Signature est absente, fausse ou trop ancienne.',
    },
  },
  WEBHOOK_NOT_FOUND: {
    status: 404,
    title: { en: 'Webhook endpoint not found', fr: 'Point de terminaison webhook introuvable' },
    detail: {
      en: 'No webhook endpoint has this id.',
      fr: "Aucun point de terminaison webhook n'a cet identifiant.",
    },
  },
  WEBHOOK_URL_NOT_ALLOWED: {
    status: 400,
    title: { en: 'Webhook URL not allowed', fr: 'URL de webhook non autorisée' },
    detail: {
      en: 'Use an http or https URL without credentials that points to a public address.',
      fr: 'Utilisez une URL http ou https sans identifiants qui pointe vers une adresse publique.',
    },
  },
  WEBHOOK_DISABLED: {
    status: 409,
    title: { en: 'Webhook endpoint disabled', fr: 'Point de terminaison webhook désactivé' },
    detail: {
      en: 'Enable the endpoint (POST /v1/webhooks/{id}/enable) before sending to it.',
      fr: "Réactivez le point de terminaison (POST /v1/webhooks/{id}/enable) avant d'y envoyer.",
    },
  },
  WEBHOOK_ENDPOINT_LIMIT: {
    status: 409,
    title: { en: 'Too many webhook endpoints', fr: 'Trop de points de terminaison webhook' },
    detail: {
      en: 'The account has the most webhook endpoints allowed; delete one before creating another.',
      fr: "Le compte a le nombre maximal de points de terminaison webhook ; supprimez-en un avant d'en créer un autre.",
    },
  },
  EVENT_NOT_FOUND: {
    status: 404,
    title: { en: 'Event not found', fr: 'Événement introuvable' },
    detail: { en: 'No event has this id.', fr: "Aucun événement n'a cet identifiant." },
  },
  UPGRADE_REQUIRED: {
    status: 426,
    title: { en: 'Upgrade required', fr: 'Mise à niveau requise' },
    detail: {
      en: 'Open /v1/ws as a WebSocket (Upgrade: websocket).',
      fr: 'Ouvrez /v1/ws en WebSocket (Upgrade: websocket).',
    },
  },
  SERVICE_UNAVAILABLE: {
    status: 503,
    title: { en: 'Service unavailable', fr: 'Service indisponible' },
    detail: {
      en: 'A dependency is unavailable; retry later.',
      fr: 'Une dépendance est indisponible ; réessayez plus tard.',
    },
  },
  ANSWER_PENDING: {
    status: 503,
    title: { en: 'Answer not taken yet', fr: 'Réponse pas encore prise en compte' },
    detail: {
      en: 'Your answer was received but the payment has not taken it into account yet. This page shows the result as soon as it has: do not pay twice.',
      fr: "Votre réponse a été reçue mais le paiement ne l'a pas encore prise en compte. Cette page affiche le résultat dès que c'est fait : ne payez pas deux fois.",
    },
  },
  DECISION_PENDING: {
    status: 503,
    title: { en: 'Not decided yet', fr: 'Pas encore décidé' },
    detail: {
      en: 'The payment could not decide on this request in time. Retry with the same X-Idempotency-Key: it is never applied twice.',
      fr: "Le paiement n'a pas pu statuer à temps sur cette demande. Réessayez avec la même X-Idempotency-Key : elle n'est jamais appliquée deux fois.",
    },
  },
  PROVIDER_UNAVAILABLE: {
    status: 503,
    title: { en: 'Provider unavailable', fr: 'Opérateur indisponible' },
    detail: {
      en: 'This mobile-money provider is temporarily unavailable; nothing was done. Retry after the delay in Retry-After, or use another provider.',
      fr: "Cet opérateur de mobile money est temporairement indisponible ; rien n'a été fait. Réessayez après le délai indiqué par Retry-After, ou utilisez un autre opérateur.",
    },
  },
  INTERNAL_ERROR: {
    status: 500,
    title: { en: 'Internal Server Error', fr: 'Erreur interne du serveur' },
    detail: { en: 'Server error; retry later.', fr: 'Erreur du serveur ; réessayez plus tard.' },
  },
} as const satisfies Record<string, Catalogue>;

export type ProblemCode = keyof typeof problemCatalogue;

export interface FieldError {
  path: string;
  /** A plain message (zod already localized it) or one per language. */
  message: string | Text;
}

export class ApiProblem extends Error {
  constructor(
    readonly code: ProblemCode,
    readonly extra: { detail?: Text; errors?: FieldError[]; headers?: Record<string, string> } = {},
  ) {
    super(code);
  }
}

export const problemSchema = z.object({
  type: z.string(),
  title: z.string(),
  status: z.number().int(),
  detail: z.string().optional(),
  code: z.string(),
  instance: z.string().optional(),
  errors: z.array(z.object({ path: z.string(), message: z.string() })).optional(),
});
export type Problem = z.infer<typeof problemSchema>;
