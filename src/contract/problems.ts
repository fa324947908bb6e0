import { z } from 'zod';
import type { Text } from './i18n';

// The problem catalogue: every error the interface answers, as an RFC 9457 problem with a stable
// `code` and localized title and detail. Services throw ApiProblem; src/api/problem.ts renders it.
// English titles of the refund errors are the interface's own.

export interface Catalogue {
  status: number;
  title: Text;
  detail?: Text;
  /** What to do about it, as the error reference (GET /docs/errors#CODE) tells it. Required, so a new code cannot ship without it. */
  help: Text;
  /** Answered by the dashboard's own routes only (/dashboard/api), so absent from the OpenAPI document. */
  dashboardOnly?: true;
}

export const problemCatalogue = {
  VALIDATION_ERROR: {
    status: 400,
    title: { en: 'Invalid request', fr: 'Requête invalide' },
    detail: { en: 'One or more fields are invalid.', fr: 'Un ou plusieurs champs sont invalides.' },
    help: {
      en: 'Read errors[]: each entry names a field by its path and says what is wrong with it. Correct those fields and send the request again; a 400 is not stored, so the same X-Idempotency-Key may be reused.',
      fr: "Lisez errors[] : chaque entrée désigne un champ par son chemin et dit ce qui ne va pas. Corrigez ces champs et renvoyez la requête ; un 400 n'est pas conservé, la même X-Idempotency-Key peut donc resservir.",
    },
  },
  MALFORMED_JSON: {
    status: 400,
    title: { en: 'Malformed JSON', fr: 'JSON mal formé' },
    detail: {
      en: 'The request body is not valid JSON.',
      fr: "Le corps de la requête n'est pas un JSON valide.",
    },
    help: {
      en: 'Send a JSON object as the body (check quotes, commas and braces, e.g. with jq); a bare string or number is not accepted.',
      fr: "Envoyez un objet JSON comme corps (vérifiez guillemets, virgules et accolades, par exemple avec jq) ; une chaîne ou un nombre seul n'est pas accepté.",
    },
  },
  MALFORMED_REQUEST: {
    status: 400,
    title: { en: 'Malformed request', fr: 'Requête mal formée' },
    detail: {
      en: 'The request is not valid HTTP, often a header containing a line break: base64 wraps long credentials, so send them with curl -u "api_key:api_client" or encode them with base64 -w0.',
      fr: 'La requête n\'est pas du HTTP valide, souvent un en-tête contenant un saut de ligne : base64 coupe les identifiants longs, envoyez-les donc avec curl -u "api_key:api_client" ou encodez-les avec base64 -w0.',
    },
    help: {
      en: 'Check that every header sits on one line: build Basic credentials with curl -u "$API_KEY:$API_CLIENT" (or base64 -w0), and send Host and a Content-Length that matches the body.',
      fr: 'Vérifiez que chaque en-tête tient sur une ligne : construisez les identifiants Basic avec curl -u "$API_KEY:$API_CLIENT" (ou base64 -w0), et envoyez Host et un Content-Length égal à la taille du corps.',
    },
  },
  REQUEST_HEADERS_TOO_LARGE: {
    status: 431,
    title: { en: 'Request headers too large', fr: 'En-têtes de requête trop volumineux' },
    detail: {
      en: 'The request headers exceed 16 KiB; send fewer or shorter headers.',
      fr: 'Les en-têtes de la requête dépassent 16 Kio ; envoyez-en moins ou de plus courts.',
    },
    help: {
      en: 'Remove cookies and headers the API does not read; it needs Authorization, Content-Type, X-Idempotency-Key and Accept-Language at most.',
      fr: "Retirez les cookies et les en-têtes que l'API ne lit pas ; il lui faut au plus Authorization, Content-Type, X-Idempotency-Key et Accept-Language.",
    },
  },
  REQUEST_TIMEOUT: {
    status: 408,
    title: { en: 'Request timeout', fr: 'Délai de requête dépassé' },
    detail: {
      en: 'The request was not received in full in time; send it again.',
      fr: "La requête n'a pas été reçue en entier à temps ; renvoyez-la.",
    },
    help: {
      en: 'Send the whole request at once and retry it with the same X-Idempotency-Key: nothing was done with the part received.',
      fr: "Envoyez la requête entière d'un seul coup et renvoyez-la avec la même X-Idempotency-Key : rien n'a été fait de la partie reçue.",
    },
  },
  UNSUPPORTED_MEDIA_TYPE: {
    status: 415,
    title: { en: 'Unsupported media type', fr: 'Type de contenu non pris en charge' },
    detail: { en: 'Send the body as application/json.', fr: 'Envoyez le corps en application/json.' },
    help: {
      en: 'Send the body as JSON in UTF-8, with Content-Type: application/json (or no Content-Type).',
      fr: 'Envoyez le corps en JSON UTF-8, avec Content-Type: application/json (ou sans Content-Type).',
    },
  },
  PAYLOAD_TOO_LARGE: {
    status: 413,
    title: { en: 'Payload too large', fr: 'Requête trop volumineuse' },
    detail: { en: 'The request body is too large.', fr: 'Le corps de la requête est trop volumineux.' },
    help: {
      en: 'Keep the body under 32 kB: send fewer items (a bulk payout takes at most 100) or shorter metadata.',
      fr: "Gardez le corps sous 32 ko : envoyez moins d'éléments (un paiement groupé en prend au plus 100) ou des métadonnées plus courtes.",
    },
  },
  UNAUTHORIZED: {
    status: 401,
    title: { en: 'Unauthorized', fr: 'Non autorisé' },
    detail: {
      en: 'Send Authorization: Basic base64(api_key:api_client) with valid credentials.',
      fr: 'Envoyez Authorization: Basic base64(api_key:api_client) avec des identifiants valides.',
    },
    help: {
      en: 'Call with curl -u "$API_KEY:$API_CLIENT" (HTTP Basic with your api_key and api_client). Use the test key (mk_test_…) in the sandbox, the live key in production; a revoked key no longer works.',
      fr: 'Appelez avec curl -u "$API_KEY:$API_CLIENT" (HTTP Basic avec votre api_key et votre api_client). Utilisez la clé de test (mk_test_…) dans le bac à sable, la clé réelle en production ; une clé révoquée ne fonctionne plus.',
    },
  },
  SESSION_REQUIRED: {
    dashboardOnly: true,
    status: 401,
    title: { en: 'Sign-in required', fr: 'Connexion requise' },
    detail: {
      en: 'Your dashboard session has ended or was never opened. Sign in again.',
      fr: "Votre session du tableau de bord a pris fin ou n'a jamais été ouverte. Reconnectez-vous.",
    },
    help: {
      en: 'Sign in at /dashboard. Sessions end when you sign out, after a period without activity, or when your membership changes.',
      fr: "Connectez-vous sur /dashboard. Une session prend fin quand vous vous déconnectez, après une période d'inactivité ou quand votre accès change.",
    },
  },
  ROLE_FORBIDDEN: {
    dashboardOnly: true,
    status: 403,
    title: { en: 'Not allowed for your role', fr: 'Non autorisé pour votre rôle' },
    detail: {
      en: 'Your role in this team does not allow this action.',
      fr: 'Votre rôle dans cette équipe ne permet pas cette action.',
    },
    help: {
      en: 'Ask an owner or an admin of your team to do it, or to give you a role that allows it (docs/dashboard.md, Roles).',
      fr: 'Demandez à un propriétaire ou à un administrateur de votre équipe de le faire, ou de vous donner un rôle qui le permet (docs/dashboard.md, Rôles).',
    },
  },
  EXPORT_TOO_LARGE: {
    dashboardOnly: true,
    status: 422,
    title: { en: 'Too many rows to export', fr: 'Trop de lignes à exporter' },
    detail: {
      en: 'More rows match these filters than an export holds. Narrow them (dates, status, operator) and export again.',
      fr: 'Plus de lignes correspondent à ces filtres qu’un export n’en contient. Restreignez-les (dates, statut, opérateur) puis exportez à nouveau.',
    },
    help: {
      en: 'An export holds at most 10,000 rows (DASHBOARD_EXPORT_MAX_ROWS). Export a shorter period (a week, a month) at a time, or add a status or operator filter; GET /v1/transactions pages through any number of rows.',
      fr: "Un export contient au plus 10 000 lignes (DASHBOARD_EXPORT_MAX_ROWS). Exportez une période plus courte (une semaine, un mois) à la fois, ou ajoutez un filtre de statut ou d'opérateur ; GET /v1/transactions parcourt un nombre quelconque de lignes, page par page.",
    },
  },
  NOTES_LIMIT_REACHED: {
    dashboardOnly: true,
    status: 409,
    title: { en: 'Too many notes on this transaction', fr: 'Trop de notes sur cette transaction' },
    detail: {
      en: 'This transaction already has 100 notes, the most it may hold. Notes cannot be removed.',
      fr: 'Cette transaction a déjà 100 notes, le maximum. Les notes ne peuvent pas être supprimées.',
    },
    help: {
      en: 'Keep further remarks in your own tools (a ticket, a customer file) and link them from an earlier note.',
      fr: 'Gardez les remarques suivantes dans vos propres outils (un ticket, une fiche client) et faites-y référence depuis une note précédente.',
    },
  },
  SAVED_FILTERS_FULL: {
    dashboardOnly: true,
    status: 409,
    title: { en: 'Too many saved filters', fr: 'Trop de filtres enregistrés' },
    detail: {
      en: 'You have saved 20 filters for this list, the most it keeps. Remove one you no longer use, then save again.',
      fr: "Vous avez enregistré 20 filtres pour cette liste, le maximum. Supprimez-en un que vous n'utilisez plus, puis enregistrez à nouveau.",
    },
    help: {
      en: 'Each member keeps at most 20 saved filters per list; remove one from the list of saved filters.',
      fr: 'Chaque membre garde au plus 20 filtres enregistrés par liste ; supprimez-en un dans la liste des filtres enregistrés.',
    },
  },
  SAVED_FILTER_NAME_TAKEN: {
    dashboardOnly: true,
    status: 409,
    title: { en: 'Name already used', fr: 'Nom déjà utilisé' },
    detail: {
      en: 'You already have filters saved under this name for this list.',
      fr: 'Vous avez déjà des filtres enregistrés sous ce nom pour cette liste.',
    },
    help: {
      en: 'Choose another name, or remove the saved filters of that name first.',
      fr: "Choisissez un autre nom, ou supprimez d'abord les filtres enregistrés sous ce nom.",
    },
  },
  SAVED_FILTER_NOT_FOUND: {
    dashboardOnly: true,
    status: 404,
    title: { en: 'Saved filters not found', fr: 'Filtres enregistrés introuvables' },
    detail: {
      en: 'No saved filters of yours have this id: they may have been removed already.',
      fr: "Aucun de vos filtres enregistrés n'a cet identifiant : ils ont peut-être déjà été supprimés.",
    },
    help: {
      en: 'Reload the list of saved filters; each member sees and removes only their own.',
      fr: 'Rechargez la liste des filtres enregistrés ; chaque membre ne voit et ne supprime que les siens.',
    },
  },
  SIGN_IN_FAILED: {
    dashboardOnly: true,
    status: 401,
    title: { en: 'Sign-in failed', fr: 'Échec de la connexion' },
    detail: {
      en: 'The email address or the password is wrong.',
      fr: "L'adresse e-mail ou le mot de passe est incorrect.",
    },
    help: {
      en: 'Check the address and the password; if you forgot the password, ask for a reset link from the sign-in page.',
      fr: "Vérifiez l'adresse et le mot de passe ; si vous avez oublié le mot de passe, demandez un lien de réinitialisation depuis la page de connexion.",
    },
  },
  TOTP_REQUIRED: {
    dashboardOnly: true,
    status: 401,
    title: { en: 'Authentication code required', fr: "Code d'authentification requis" },
    detail: {
      en: 'This account has two-step verification: enter the 6-digit code of your authenticator app.',
      fr: "Ce compte a la vérification en deux étapes : saisissez le code à 6 chiffres de votre application d'authentification.",
    },
    help: {
      en: 'Open your authenticator app and send the current 6-digit code as `totp` with your address and password; without your phone, send one of your recovery codes there instead.',
      fr: "Ouvrez votre application d'authentification et envoyez le code à 6 chiffres du moment dans `totp`, avec votre adresse et votre mot de passe ; sans votre téléphone, envoyez-y plutôt l'un de vos codes de secours.",
    },
  },
  TOTP_INVALID: {
    dashboardOnly: true,
    status: 401,
    title: { en: 'Wrong authentication code', fr: "Code d'authentification incorrect" },
    detail: {
      en: 'The 6-digit code is wrong or has expired, or the recovery code is wrong or already used.',
      fr: 'Le code à 6 chiffres est incorrect ou a expiré, ou le code de secours est incorrect ou a déjà servi.',
    },
    help: {
      en: "Enter the code your authenticator app shows now (it changes every 30 seconds); check your phone's clock if it keeps failing.",
      fr: "Saisissez le code que votre application d'authentification affiche maintenant (il change toutes les 30 secondes) ; vérifiez l'heure de votre téléphone si l'échec se répète.",
    },
  },
  SIGN_IN_LOCKED: {
    dashboardOnly: true,
    status: 429,
    title: { en: 'Too many failed sign-ins', fr: 'Trop de connexions échouées' },
    detail: {
      en: 'Sign-in to this account is paused after too many failures. Try again later, or reset your password.',
      fr: 'La connexion à ce compte est suspendue après trop d’échecs. Réessayez plus tard ou réinitialisez votre mot de passe.',
    },
    help: {
      en: 'Wait for the time given by Retry-After, or reset your password by the link the sign-in page mails you (docs/decisions/dashboard/sign-in-limits-and-lockout.md).',
      fr: 'Attendez le délai indiqué par Retry-After, ou réinitialisez votre mot de passe par le lien que la page de connexion vous envoie (docs/decisions/dashboard/sign-in-limits-and-lockout.md).',
    },
  },
  CSRF_REFUSED: {
    dashboardOnly: true,
    status: 403,
    title: { en: 'Request refused', fr: 'Requête refusée' },
    detail: {
      en: 'This change did not come from the dashboard page (its security token or origin is missing or wrong).',
      fr: 'Cette modification ne vient pas de la page du tableau de bord (son jeton de sécurité ou son origine manque ou est incorrect).',
    },
    help: {
      en: 'Reload the dashboard and try again. Changes need the X-CSRF-Token header with the token of GET /dashboard/api/session, sent from the same origin.',
      fr: "Rechargez le tableau de bord et réessayez. Une modification demande l'en-tête X-CSRF-Token avec le jeton de GET /dashboard/api/session, envoyé depuis la même origine.",
    },
  },
  TOTP_REQUIRED_FOR_LIVE: {
    dashboardOnly: true,
    status: 403,
    title: {
      en: 'Two-step verification required for live mode',
      fr: 'Vérification en deux étapes requise en mode live',
    },
    detail: {
      en: 'Owners and admins act in live mode only with two-step verification (TOTP) set up, and every member moves live money (refunds, payouts, API keys, webhook endpoints) only with it.',
      fr: 'Les propriétaires et les administrateurs n’agissent en mode live qu’avec la vérification en deux étapes (TOTP) activée, et tout membre ne déplace de l’argent réel (remboursements, paiements sortants, clés d’API, points de terminaison webhook) qu’avec elle.',
    },
    help: {
      en: 'Set up an authenticator app in your profile (POST /dashboard/api/auth/totp/setup, then …/enable with its first code), then switch to live mode.',
      fr: 'Configurez une application d’authentification dans votre profil (POST /dashboard/api/auth/totp/setup, puis …/enable avec son premier code), puis passez en mode live.',
    },
  },
  TOTP_SETUP_REQUIRED: {
    dashboardOnly: true,
    status: 403,
    title: {
      en: 'Set up two-step verification first',
      fr: 'Configurez d’abord la vérification en deux étapes',
    },
    detail: {
      en: 'Your team requires two-step verification (TOTP) for every member, or this setting needs it: set it up before anything else.',
      fr: 'Votre équipe exige la vérification en deux étapes (TOTP) pour chaque membre, ou ce réglage la demande : configurez-la avant toute autre chose.',
    },
    help: {
      en: 'Open Account, set up an authenticator app (POST /dashboard/api/auth/totp/setup, then …/enable with its first code) and keep the recovery codes shown.',
      fr: 'Ouvrez Compte, configurez une application d’authentification (POST /dashboard/api/auth/totp/setup, puis …/enable avec son premier code) et gardez les codes de secours affichés.',
    },
  },
  CURRENT_PASSWORD_INCORRECT: {
    dashboardOnly: true,
    status: 403,
    title: { en: 'Current password incorrect', fr: 'Mot de passe actuel incorrect' },
    detail: {
      en: 'The current password given is not yours: the password was not changed.',
      fr: 'Le mot de passe actuel saisi n’est pas le vôtre : le mot de passe n’a pas été changé.',
    },
    help: {
      en: 'Type your current password again. Forgotten, sign out and use “Forgot password” on the sign-in page; repeated mistakes lock the account for a while.',
      fr: 'Saisissez à nouveau votre mot de passe actuel. Oublié, déconnectez-vous et utilisez « Mot de passe oublié » sur la page de connexion ; des erreurs répétées bloquent le compte un moment.',
    },
  },
  STEP_UP_REQUIRED: {
    dashboardOnly: true,
    status: 403,
    title: {
      en: 'Confirm with your authenticator code',
      fr: 'Confirmez avec le code de votre application d’authentification',
    },
    detail: {
      en: 'Creating or revoking a live API key needs a two-step verification code checked in the last five minutes.',
      fr: 'Créer ou révoquer une clé d’API live demande un code de vérification en deux étapes vérifié dans les cinq dernières minutes.',
    },
    help: {
      en: 'Send the current code of your authenticator app to POST /dashboard/api/auth/step-up ({"totp": "123456"}), then repeat the request within five minutes.',
      fr: 'Envoyez le code actuel de votre application d’authentification à POST /dashboard/api/auth/step-up ({"totp": "123456"}), puis refaites la requête dans les cinq minutes.',
    },
  },
  LIVE_MODE_REQUIRED: {
    dashboardOnly: true,
    status: 403,
    title: { en: 'Switch to live mode first', fr: 'Passez d’abord en mode live' },
    detail: {
      en: 'A live API key is created or revoked from a live-mode session only.',
      fr: 'Une clé d’API live ne se crée ou ne se révoque que depuis une session en mode live.',
    },
    help: {
      en: 'Switch the dashboard to live mode (PUT /dashboard/api/session/mode {"mode": "live"}, which needs two-step verification), then repeat the request.',
      fr: 'Passez le tableau de bord en mode live (PUT /dashboard/api/session/mode {"mode": "live"}, qui demande la vérification en deux étapes), puis refaites la requête.',
    },
  },
  LINK_INVALID: {
    dashboardOnly: true,
    status: 410,
    title: { en: 'Link no longer valid', fr: "Lien qui n'est plus valable" },
    detail: {
      en: 'This link was already used, has expired or was revoked.',
      fr: 'Ce lien a déjà servi, a expiré ou a été révoqué.',
    },
    help: {
      en: 'Invitations last 7 days and password-reset links one hour, and each works once: ask an owner for a new invitation, or ask for a new reset link.',
      fr: 'Une invitation dure 7 jours et un lien de réinitialisation une heure, et chacun ne sert qu’une fois : demandez une nouvelle invitation à un propriétaire, ou un nouveau lien de réinitialisation.',
    },
  },
  EMAIL_TAKEN: {
    dashboardOnly: true,
    status: 409,
    title: { en: 'Address already in a team', fr: 'Adresse déjà dans une équipe' },
    detail: {
      en: 'This email address already belongs to a dashboard team; an address belongs to one team only.',
      fr: "Cette adresse e-mail appartient déjà à une équipe du tableau de bord ; une adresse n'appartient qu'à une équipe.",
    },
    help: {
      en: 'Invite another address, or have the member removed from their current team first (docs/decisions/dashboard/one-merchant-per-member.md).',
      fr: "Invitez une autre adresse, ou faites d'abord retirer ce membre de son équipe actuelle (docs/decisions/dashboard/one-merchant-per-member.md).",
    },
  },
  MERCHANT_SUSPENDED: {
    dashboardOnly: true,
    status: 403,
    title: { en: 'Account suspended', fr: 'Compte suspendu' },
    detail: {
      en: "This merchant's account is suspended: its dashboard is closed until it is reactivated.",
      fr: "Le compte de ce marchand est suspendu : son tableau de bord est fermé jusqu'à sa réactivation.",
    },
    help: {
      en: 'Contact the payments operator: a suspension is lifted with `payments merchants reactivate`.',
      fr: "Contactez l'opérateur des paiements : une suspension se lève avec `payments merchants reactivate`.",
    },
  },
  OWNER_PROTECTED: {
    dashboardOnly: true,
    status: 403,
    title: { en: 'Owners are protected', fr: 'Les propriétaires sont protégés' },
    detail: {
      en: 'Only an owner may change or remove an owner, or make someone an owner, and a team keeps at least one owner.',
      fr: 'Seul un propriétaire peut modifier ou retirer un propriétaire, ou en nommer un, et une équipe garde au moins un propriétaire.',
    },
    help: {
      en: 'Ask an owner of your team; to leave the team as its last owner, first make another member an owner.',
      fr: "Demandez à un propriétaire de votre équipe ; pour quitter l'équipe en étant son dernier propriétaire, nommez d'abord un autre membre propriétaire.",
    },
  },
  TRANSACTION_NOT_FOUND: {
    dashboardOnly: true,
    status: 404,
    title: { en: 'Transaction not found', fr: 'Transaction introuvable' },
    detail: {
      en: 'No payin, payout or refund of yours has this id in this mode.',
      fr: "Aucun encaissement, paiement ni remboursement de votre compte n'a cet identifiant dans ce mode.",
    },
    help: {
      en: 'Check the id (pi_…, pr_…, rf_…) and the mode switch: test and live data are kept apart.',
      fr: "Vérifiez l'identifiant (pi_…, pr_…, rf_…) et le mode choisi : les données de test et de production sont séparées.",
    },
  },
  API_KEY_NOT_FOUND: {
    dashboardOnly: true,
    status: 404,
    title: { en: 'API key not found', fr: 'Clé API introuvable' },
    detail: {
      en: 'Your account has no API key with this name.',
      fr: "Votre compte n'a pas de clé API de ce nom.",
    },
    help: {
      en: 'Pick the key from the list of your keys (GET /dashboard/api/keys).',
      fr: 'Choisissez la clé dans la liste de vos clés (GET /dashboard/api/keys).',
    },
  },
  LAST_ACTIVE_KEY: {
    dashboardOnly: true,
    status: 409,
    title: { en: 'Last active key', fr: 'Dernière clé active' },
    detail: {
      en: 'This is the last active API key of its mode: revoking it would cut your integration off.',
      fr: "C'est la dernière clé API active de ce mode : la révoquer couperait votre intégration.",
    },
    help: {
      en: 'Create a new key of the same mode first (it is shown once), put it in your integration, then revoke this one.',
      fr: "Créez d'abord une nouvelle clé du même mode (elle n'est affichée qu'une fois), mettez-la dans votre intégration, puis révoquez celle-ci.",
    },
  },
  UPLOAD_UNREADABLE: {
    dashboardOnly: true,
    status: 400,
    title: { en: 'File not readable', fr: 'Fichier illisible' },
    detail: {
      en: 'The file is not a CSV or XLSX file of payouts this page can read.',
      fr: "Le fichier n'est pas un fichier CSV ou XLSX de paiements que cette page sait lire.",
    },
    help: {
      en: 'Send a CSV (UTF-8, comma or semicolon separated, a header line) or an XLSX file of at most 1 MB and 1,000 rows, with the columns of docs/bulk-payouts.md.',
      fr: "Envoyez un fichier CSV (UTF-8, séparé par des virgules ou des points-virgules, avec une ligne d'en-tête) ou XLSX d'au plus 1 Mo et 1 000 lignes, avec les colonnes de docs/bulk-payouts.md.",
    },
  },
  LOGO_INVALID: {
    dashboardOnly: true,
    status: 400,
    title: { en: 'Logo not accepted', fr: 'Logo refusé' },
    detail: {
      en: 'The logo must be a PNG, JPEG or WebP image of at most 100 kB.',
      fr: 'Le logo doit être une image PNG, JPEG ou WebP de 100 Ko au plus.',
    },
    help: {
      en: 'Export the logo as PNG, JPEG or WebP (not SVG), about 360 × 120 pixels, and upload it again.',
      fr: "Exportez le logo en PNG, JPEG ou WebP (pas en SVG), d'environ 360 × 120 pixels, puis envoyez-le à nouveau.",
    },
  },
  NOT_FOUND: {
    status: 404,
    title: { en: 'Not found', fr: 'Introuvable' },
    detail: { en: 'No such resource.', fr: "Cette ressource n'existe pas." },
    help: {
      en: 'Check the method and path against the API reference (/docs); paths start with /v1.',
      fr: "Vérifiez la méthode et le chemin dans la référence de l'API (/docs) ; les chemins commencent par /v1.",
    },
  },
  METHOD_NOT_ALLOWED: {
    status: 405,
    title: { en: 'Method not allowed', fr: 'Méthode non autorisée' },
    detail: {
      en: 'This resource does not accept this method; see the Allow header.',
      fr: "Cette ressource n'accepte pas cette méthode ; voir l'en-tête Allow.",
    },
    help: {
      en: 'Use one of the methods the Allow header lists for this path.',
      fr: "Utilisez l'une des méthodes que l'en-tête Allow indique pour ce chemin.",
    },
  },
  BATCH_NOT_FOUND: {
    status: 404,
    title: { en: 'Payout batch not found', fr: 'Lot de paiements introuvable' },
    detail: {
      en: 'No bulk payout of yours has this id.',
      fr: "Aucun de vos paiements groupés n'a cet identifiant.",
    },
    help: {
      en: 'Use the id (pb_…) that POST /v1/payouts/bulk returned, with the key of the same mode (test or live).',
      fr: "Utilisez l'identifiant (pb_…) renvoyé par POST /v1/payouts/bulk, avec la clé du même mode (test ou réel).",
    },
  },
  BATCH_REFUSED: {
    status: 409,
    title: { en: 'Batch refused', fr: 'Lot refusé' },
    detail: {
      en: 'This item is valid, but another item of this atomic batch was refused, so none was paid.',
      fr: "Cet élément est valide, mais un autre élément de ce lot atomique a été refusé : aucun n'a été payé.",
    },
    help: {
      en: 'Correct the refused items of the batch (their own problems say why) and send the whole batch again with a new X-Idempotency-Key, or send it with atomic: false to pay the valid items.',
      fr: 'Corrigez les éléments refusés du lot (leurs propres problèmes disent pourquoi) et renvoyez tout le lot avec une nouvelle X-Idempotency-Key, ou envoyez-le avec atomic: false pour payer les éléments valides.',
    },
  },
  REPLAY_TOO_LARGE: {
    status: 422,
    title: { en: 'Replay too large', fr: 'Renvoi trop volumineux' },
    detail: {
      en: 'The period holds more than 10,000 events to send; replay it in shorter periods.',
      fr: 'La période contient plus de 10 000 événements à renvoyer ; renvoyez-la par périodes plus courtes.',
    },
    help: {
      en: 'Ask for a shorter period (from and to closer together), one request per part.',
      fr: 'Demandez une période plus courte (from et to plus proches), une requête par partie.',
    },
  },
  STATEMENT_NOT_FOUND: {
    status: 404,
    title: { en: 'Statement not found', fr: 'Relevé introuvable' },
    detail: { en: 'No statement of yours has this id.', fr: "Aucun de vos relevés n'a cet identifiant." },
    help: {
      en: 'Use the id (st_…) that POST /v1/statements returned, with the key of the same mode.',
      fr: "Utilisez l'identifiant (st_…) renvoyé par POST /v1/statements, avec la clé du même mode.",
    },
  },
  STATEMENT_NOT_READY: {
    status: 409,
    title: { en: 'Statement not ready', fr: 'Relevé pas encore prêt' },
    detail: {
      en: 'The statement is still being generated (or failed): read GET /v1/statements/{id} for its status.',
      fr: 'Le relevé est en cours de génération (ou a échoué) : consultez GET /v1/statements/{id}.',
    },
    help: {
      en: 'Poll GET /v1/statements/{id} until its status is ready, then download it; if it failed, ask for it again.',
      fr: "Interrogez GET /v1/statements/{id} jusqu'à ce que son statut soit ready, puis téléchargez-le ; s'il a échoué, redemandez-le.",
    },
  },
  DOWNLOAD_LINK_INVALID: {
    status: 403,
    title: { en: 'Download link invalid', fr: 'Lien de téléchargement invalide' },
    detail: {
      en: 'This link is expired or was not issued by us: read the statement again for a new one.',
      fr: "Ce lien a expiré ou n'a pas été émis par nous : relisez le relevé pour en obtenir un nouveau.",
    },
    help: {
      en: 'Read GET /v1/statements/{id} again: it gives a fresh download link, valid for a limited time.',
      fr: 'Relisez GET /v1/statements/{id} : il donne un nouveau lien de téléchargement, valable un temps limité.',
    },
  },
  ACCOUNT_NOT_FOUND: {
    status: 404,
    title: { en: 'Account not found', fr: 'Compte introuvable' },
    detail: { en: 'No account of yours has this id.', fr: "Aucun de vos comptes n'a cet identifiant." },
    help: {
      en: 'List your accounts with GET /v1/accounts and use one of their ids, with the key of the same mode.',
      fr: "Listez vos comptes avec GET /v1/accounts et utilisez l'un de leurs identifiants, avec la clé du même mode.",
    },
  },
  PAYMENT_NOT_FOUND: {
    status: 404,
    title: { en: 'Payment not found', fr: 'Paiement introuvable' },
    detail: { en: 'No payment has this reference.', fr: "Aucun paiement n'a cette référence." },
    help: {
      en: 'Use the reference you gave the payin, with the key of the mode it was made in (a test payin is not found with the live key); GET /v1/transactions finds it by reference.',
      fr: 'Utilisez la référence que vous avez donnée au paiement, avec la clé du mode où il a été fait (un paiement de test est introuvable avec la clé réelle) ; GET /v1/transactions le retrouve par référence.',
    },
  },
  PAYMENT_LINK_NOT_FOUND: {
    status: 404,
    title: { en: 'Payment link not found', fr: 'Lien de paiement introuvable' },
    detail: {
      en: 'No payment link of yours has this id.',
      fr: "Aucun de vos liens de paiement n'a cet identifiant.",
    },
    help: {
      en: 'List your links with GET /v1/payment-links and use one of their ids (pl_…), with the key of the same mode.',
      fr: "Listez vos liens avec GET /v1/payment-links et utilisez l'un de leurs identifiants (pl_…), avec la clé du même mode.",
    },
  },
  REFUND_NOT_FOUND: {
    status: 404,
    title: { en: 'Refund not found', fr: 'Remboursement introuvable' },
    detail: { en: 'No refund has this reference.', fr: "Aucun remboursement n'a cette référence." },
    help: {
      en: "Use the refund's reference (rf_…) from the refund's creation answer or from GET /v1/transactions?type=refund.",
      fr: 'Utilisez la référence du remboursement (rf_…) issue de la réponse à sa création ou de GET /v1/transactions?type=refund.',
    },
  },
  PAYOUT_NOT_FOUND: {
    status: 404,
    title: { en: 'Payout not found', fr: 'Transfert introuvable' },
    detail: { en: 'No payout has this reference.', fr: "Aucun transfert n'a cette référence." },
    help: {
      en: 'Use the reference you gave the payout, with the key of the mode it was made in; GET /v1/transactions?type=payout lists them.',
      fr: 'Utilisez la référence que vous avez donnée au transfert, avec la clé du mode où il a été fait ; GET /v1/transactions?type=payout les liste.',
    },
  },
  SESSION_NOT_FOUND: {
    status: 404,
    title: { en: 'Payment session not found', fr: 'Session de paiement introuvable' },
    detail: {
      en: 'This payment link is not valid.',
      fr: "Ce lien de paiement n'est pas valide.",
    },
    help: {
      en: 'Customer: ask the merchant for a new payment link. Merchant: create a session with POST /v1/payin/session and send its paymentUrl.',
      fr: 'Client : demandez un nouveau lien de paiement au marchand. Marchand : créez une session avec POST /v1/payin/session et transmettez son paymentUrl.',
    },
  },
  SESSION_CLOSED: {
    status: 409,
    title: { en: 'Payment session closed', fr: 'Session de paiement close' },
    detail: {
      en: 'This payment no longer awaits your answer: it was already confirmed, declined, or it expired.',
      fr: "Ce paiement n'attend plus votre réponse : il a déjà été confirmé, refusé, ou il a expiré.",
    },
    help: {
      en: "Nothing to do on this page: it shows the payment's final result. To pay again, ask the merchant for a new link.",
      fr: 'Rien à faire sur cette page : elle montre le résultat final du paiement. Pour payer à nouveau, demandez un nouveau lien au marchand.',
    },
  },
  DUPLICATE_REFERENCE: {
    status: 409,
    title: { en: 'Duplicate reference', fr: 'Référence déjà utilisée' },
    detail: {
      en: 'This reference was already used for another transaction.',
      fr: 'Cette référence a déjà été utilisée pour une autre transaction.',
    },
    help: {
      en: 'Each payin and payout needs its own reference: use a new one. To retry the same request, send the same X-Idempotency-Key instead; GET the reference to see the transaction that has it.',
      fr: 'Chaque paiement et transfert demande sa propre référence : utilisez-en une nouvelle. Pour retenter la même requête, renvoyez plutôt la même X-Idempotency-Key ; lisez la référence (GET) pour voir la transaction qui la porte.',
    },
  },
  PAYOUT_NOT_CANCELLABLE: {
    status: 409,
    title: { en: 'Payout cannot be cancelled', fr: 'Paiement sortant non annulable' },
    detail: {
      en: 'The payout was already sent to the operator, or has ended: only a payout not yet sent can be cancelled.',
      fr: "Le paiement sortant a déjà été transmis à l'opérateur, ou il est terminé : seul un paiement pas encore transmis peut être annulé.",
    },
    help: {
      en: 'Read the payout (GET) to see its status; a payout already sent can no longer be stopped, wait for its final status.',
      fr: 'Lisez le transfert (GET) pour voir son statut ; un transfert déjà transmis ne peut plus être arrêté, attendez son statut final.',
    },
  },
  SANDBOX_ONLY_IN_TEST_MODE: {
    status: 400,
    title: { en: 'Sandbox feature in live mode', fr: 'Fonction de bac à sable en mode réel' },
    detail: {
      en: 'sandboxScenario and sandbox funding exist only in test mode: call with your test key (mk_test_…).',
      fr: "sandboxScenario et l'approvisionnement de bac à sable n'existent qu'en mode test : appelez avec votre clé de test (mk_test_…).",
    },
    help: {
      en: 'Call with your test key (mk_test_…), or remove sandboxScenario from the request.',
      fr: 'Appelez avec votre clé de test (mk_test_…), ou retirez sandboxScenario de la requête.',
    },
  },
  TEST_MODE_ONLY: {
    status: 403,
    title: { en: 'Test mode only', fr: 'Mode test uniquement' },
    detail: {
      en: 'The sandbox test helpers (/v1/sandbox/...) act on test transactions only: call with your test key (mk_test_…).',
      fr: "Les outils de test du bac à sable (/v1/sandbox/...) n'agissent que sur les transactions de test : appelez avec votre clé de test (mk_test_…).",
    },
    help: {
      en: 'Drive outcomes with your test keys only; in live mode the operator and the customer decide, and GET /v1/payin/{reference} or the webhooks tell you the outcome.',
      fr: "Pilotez les résultats avec vos clés de test uniquement ; en mode live, l'opérateur et le client décident, et GET /v1/payin/{reference} ou les webhooks vous donnent le résultat.",
    },
  },
  NOT_AT_OPERATOR_YET: {
    status: 503,
    title: { en: 'Not at the operator yet', fr: "Pas encore chez l'opérateur" },
    detail: {
      en: 'The operator has not received this transaction yet (it is sent moments after its creation). Retry after Retry-After with the same X-Idempotency-Key.',
      fr: "L'opérateur n'a pas encore reçu cette transaction (elle lui est envoyée peu après sa création). Réessayez après Retry-After avec la même X-Idempotency-Key.",
    },
    help: {
      en: 'Wait the seconds Retry-After gives and send the same request with the same X-Idempotency-Key; for a session, the customer must first confirm it on the checkout page.',
      fr: "Attendez les secondes indiquées par Retry-After et renvoyez la même requête avec la même X-Idempotency-Key ; pour une session, le client doit d'abord la confirmer sur la page de paiement.",
    },
  },
  ALREADY_FINAL: {
    status: 409,
    title: { en: 'Already final', fr: 'Déjà terminée' },
    detail: {
      en: 'This transaction already has its final outcome at the operator; nothing was changed.',
      fr: "Cette transaction a déjà son résultat définitif chez l'opérateur ; rien n'a été modifié.",
    },
    help: {
      en: 'Read the transaction (GET by its reference) for its final status; create a new test transaction to try another outcome.',
      fr: 'Lisez la transaction (GET par sa référence) pour connaître son statut final ; créez une nouvelle transaction de test pour essayer un autre résultat.',
    },
  },
  IDEMPOTENCY_KEY_MISSING: {
    status: 400,
    title: { en: 'Idempotency key missing', fr: "Clé d'idempotence manquante" },
    detail: {
      en: 'Every POST needs an X-Idempotency-Key header holding a UUID.',
      fr: 'Chaque POST exige un en-tête X-Idempotency-Key contenant un UUID.',
    },
    help: {
      en: 'Add -H "X-Idempotency-Key: $(node -p \'crypto.randomUUID()\')" to each POST: a new UUID per new request, the same one to retry a request.',
      fr: 'Ajoutez -H "X-Idempotency-Key: $(node -p \'crypto.randomUUID()\')" à chaque POST : un nouvel UUID par nouvelle requête, le même pour retenter une requête.',
    },
  },
  IDEMPOTENCY_KEY_INVALID: {
    status: 400,
    title: { en: 'Invalid idempotency key', fr: "Clé d'idempotence invalide" },
    detail: {
      en: 'X-Idempotency-Key must be a UUID such as 3f2b8c1e-9d4a-4e7b-8a61-0c5d2e9f7a14.',
      fr: 'X-Idempotency-Key doit être un UUID tel que 3f2b8c1e-9d4a-4e7b-8a61-0c5d2e9f7a14.',
    },
    help: {
      en: 'Send a UUID, e.g. from crypto.randomUUID() or uuidgen.',
      fr: 'Envoyez un UUID, par exemple issu de crypto.randomUUID() ou de uuidgen.',
    },
  },
  IDEMPOTENCY_KEY_REUSED: {
    status: 409,
    title: { en: 'Idempotency key reused', fr: "Clé d'idempotence réutilisée" },
    detail: {
      en: 'This X-Idempotency-Key was already used for a different request; use a new key.',
      fr: 'Cette X-Idempotency-Key a déjà servi pour une autre requête ; utilisez une nouvelle clé.',
    },
    help: {
      en: 'A key belongs to one request: send a new key for a new or corrected request, the same key only to retry the very same body.',
      fr: 'Une clé appartient à une seule requête : envoyez une nouvelle clé pour une requête nouvelle ou corrigée, la même clé seulement pour retenter exactement le même corps.',
    },
  },
  REQUEST_IN_PROGRESS: {
    status: 409,
    title: { en: 'Request in progress', fr: 'Requête en cours' },
    detail: {
      en: 'A request with this X-Idempotency-Key is still being processed; retry shortly.',
      fr: 'Une requête avec cette X-Idempotency-Key est encore en cours ; réessayez dans un instant.',
    },
    help: {
      en: "Wait the seconds in Retry-After and retry with the same key and body: you get the first request's answer.",
      fr: 'Attendez les secondes indiquées par Retry-After et réessayez avec la même clé et le même corps : vous obtenez la réponse de la première requête.',
    },
  },
  RATE_LIMITED: {
    status: 429,
    title: { en: 'Too many requests', fr: 'Trop de requêtes' },
    detail: {
      en: 'Request rate limit reached; retry after the delay in Retry-After.',
      fr: 'Limite de requêtes atteinte ; réessayez après le délai indiqué par Retry-After.',
    },
    help: {
      en: 'Wait the seconds in Retry-After before the next call, and spread your calls (the RateLimit header tells what is left).',
      fr: "Attendez les secondes indiquées par Retry-After avant l'appel suivant, et étalez vos appels (l'en-tête RateLimit indique ce qui reste).",
    },
  },
  INVALID_AMOUNT: {
    status: 400,
    title: { en: 'Invalid amount', fr: 'Montant invalide' },
    detail: {
      en: 'The amount is greater than the original payment allows.',
      fr: 'Le montant dépasse ce que permet le paiement initial.',
    },
    help: {
      en: 'Refund at most what remains of the payment (its amount minus earlier refunds, shown on GET /v1/payin/{reference}), or leave amount out to refund the rest.',
      fr: 'Remboursez au plus ce qui reste du paiement (son montant moins les remboursements précédents, visible par GET /v1/payin/{reference}), ou omettez amount pour rembourser le reste.',
    },
  },
  REFUND_NOT_ALLOWED: {
    status: 403,
    title: { en: 'Refund not allowed', fr: 'Remboursement non autorisé' },
    detail: { en: 'This transaction is not refundable.', fr: "Cette transaction n'est pas remboursable." },
    help: {
      en: 'Only a payin with status success, within its refund period (docs/refunds.md), can be refunded: read GET /v1/payin/{reference} for its status.',
      fr: 'Seul un paiement au statut success, dans sa période de remboursement (docs/refunds.md), peut être remboursé : lisez GET /v1/payin/{reference} pour son statut.',
    },
  },
  DUPLICATE_REFUND: {
    status: 409,
    title: { en: 'Duplicate refund', fr: 'Remboursement en double' },
    detail: {
      en: 'This refund was already attempted; use a different idempotency key.',
      fr: "Ce remboursement a déjà été tenté ; utilisez une autre clé d'idempotence.",
    },
    help: {
      en: 'To retry a refund, send the same X-Idempotency-Key with the same body. For another refund of this payment, use a new X-Idempotency-Key and a new externalReference.',
      fr: 'Pour retenter un remboursement, renvoyez la même X-Idempotency-Key avec le même corps. Pour un autre remboursement de ce paiement, utilisez une nouvelle X-Idempotency-Key et une nouvelle externalReference.',
    },
  },
  INSUFFICIENT_BALANCE: {
    status: 403,
    title: { en: 'Insufficient balance', fr: 'Solde insuffisant' },
    detail: {
      en: 'The account balance does not cover this operation.',
      fr: 'Le solde du compte ne couvre pas cette opération.',
    },
    help: {
      en: 'Read GET /v1/accounts for your balance; credit the account (in test mode, fund the sandbox merchant) or send a smaller amount.',
      fr: 'Consultez GET /v1/accounts pour votre solde ; approvisionnez le compte (en mode test, approvisionnez le marchand du bac à sable) ou envoyez un montant plus petit.',
    },
  },
  OTP_REQUIRED: {
    status: 400,
    title: { en: 'OTP required', fr: 'OTP requis' },
    detail: {
      en: 'This operator needs the OTP the customer obtains by dialling #144*82#; send it in payin.otp.',
      fr: "Cet opérateur exige l'OTP que le client obtient en composant le #144*82# ; envoyez-le dans payin.otp.",
    },
    help: {
      en: "Ask the customer to dial the operator's code (e.g. #144*82# for Orange CI) and send the code they get in otp.",
      fr: "Demandez au client de composer le code de l'opérateur (par exemple #144*82# pour Orange CI) et envoyez le code obtenu dans otp.",
    },
  },
  MSISDN_PROVIDER_MISMATCH: {
    status: 400,
    title: { en: 'Number of another operator', fr: "Numéro d'un autre opérateur" },
    detail: {
      en: 'The phone number belongs to another operator than the chosen provider.',
      fr: 'Le numéro de téléphone appartient à un autre opérateur que celui choisi.',
    },
    help: {
      en: "Send the number's own operator as provider: GET /v1/providers/predict?msisdn=… tells it.",
      fr: "Envoyez comme provider l'opérateur du numéro : GET /v1/providers/predict?msisdn=… l'indique.",
    },
  },
  AMOUNT_OUT_OF_RANGE: {
    status: 400,
    title: { en: 'Amount out of range', fr: 'Montant hors limites' },
    detail: {
      en: "The amount is outside the provider's limits (see GET /v1/providers).",
      fr: "Le montant est hors des limites de l'opérateur (voir GET /v1/providers).",
    },
    help: {
      en: 'Send an amount within the limits GET /v1/providers gives for this operator and country, or use another operator.',
      fr: 'Envoyez un montant dans les limites que GET /v1/providers donne pour cet opérateur et ce pays, ou utilisez un autre opérateur.',
    },
  },
  OPERATOR_SIGNATURE_INVALID: {
    status: 401,
    title: { en: 'Invalid signature', fr: 'Signature invalide' },
    detail: {
      en: 'X-Operator-Signature is missing, wrong or too old.',
      fr: 'X-Operator-Signature est absente, fausse ou trop ancienne.',
    },
    help: {
      en: 'Operators only: sign each callback with the shared secret and a current timestamp in X-Operator-Signature.',
      fr: 'Opérateurs seulement : signez chaque rappel avec le secret partagé et un horodatage actuel dans X-Operator-Signature.',
    },
  },
  WEBHOOK_NOT_FOUND: {
    status: 404,
    title: { en: 'Webhook endpoint not found', fr: 'Point de terminaison webhook introuvable' },
    detail: {
      en: 'No webhook endpoint has this id.',
      fr: "Aucun point de terminaison webhook n'a cet identifiant.",
    },
    help: {
      en: 'List your endpoints with GET /v1/webhooks and use one of their ids (we_…), with the key of the same mode.',
      fr: "Listez vos points de terminaison avec GET /v1/webhooks et utilisez l'un de leurs identifiants (we_…), avec la clé du même mode.",
    },
  },
  WEBHOOK_URL_NOT_ALLOWED: {
    status: 400,
    title: { en: 'Webhook URL not allowed', fr: 'URL de webhook non autorisée' },
    detail: {
      en: 'Use an http or https URL without credentials that points to a public address.',
      fr: 'Utilisez une URL http ou https sans identifiants qui pointe vers une adresse publique.',
    },
    help: {
      en: 'Use a public http(s) URL. To receive on your own machine in development, set WEBHOOK_ALLOW_PRIVATE_NETWORKS=true on the server or use a tunnel.',
      fr: 'Utilisez une URL http(s) publique. Pour recevoir sur votre propre machine en développement, définissez WEBHOOK_ALLOW_PRIVATE_NETWORKS=true sur le serveur ou utilisez un tunnel.',
    },
  },
  WEBHOOK_DISABLED: {
    status: 409,
    title: { en: 'Webhook endpoint disabled', fr: 'Point de terminaison webhook désactivé' },
    detail: {
      en: 'Enable the endpoint (POST /v1/webhooks/{id}/enable) before sending to it.',
      fr: "Réactivez le point de terminaison (POST /v1/webhooks/{id}/enable) avant d'y envoyer.",
    },
    help: {
      en: 'Fix the receiver, then enable the endpoint with POST /v1/webhooks/{id}/enable and send again.',
      fr: 'Réparez le récepteur, puis réactivez le point de terminaison avec POST /v1/webhooks/{id}/enable et renvoyez.',
    },
  },
  WEBHOOK_ENDPOINT_LIMIT: {
    status: 409,
    title: { en: 'Too many webhook endpoints', fr: 'Trop de points de terminaison webhook' },
    detail: {
      en: 'The account has the most webhook endpoints allowed; delete one before creating another.',
      fr: "Le compte a le nombre maximal de points de terminaison webhook ; supprimez-en un avant d'en créer un autre.",
    },
    help: {
      en: 'Delete an endpoint you no longer use (DELETE /v1/webhooks/{id}); one endpoint can receive every event type.',
      fr: "Supprimez un point de terminaison inutilisé (DELETE /v1/webhooks/{id}) ; un seul point de terminaison peut recevoir tous les types d'événements.",
    },
  },
  EVENT_NOT_FOUND: {
    status: 404,
    title: { en: 'Event not found', fr: 'Événement introuvable' },
    detail: { en: 'No event has this id.', fr: "Aucun événement n'a cet identifiant." },
    help: {
      en: 'Use an event id (evt_…) from GET /v1/events or from a webhook you received, with the key of the same mode.',
      fr: "Utilisez un identifiant d'événement (evt_…) issu de GET /v1/events ou d'un webhook reçu, avec la clé du même mode.",
    },
  },
  UPGRADE_REQUIRED: {
    status: 426,
    title: { en: 'Upgrade required', fr: 'Mise à niveau requise' },
    detail: {
      en: 'Open /v1/ws as a WebSocket (Upgrade: websocket).',
      fr: 'Ouvrez /v1/ws en WebSocket (Upgrade: websocket).',
    },
    help: {
      en: 'Connect with a WebSocket client, not with a plain GET.',
      fr: 'Connectez-vous avec un client WebSocket, pas avec un simple GET.',
    },
  },
  SERVICE_UNAVAILABLE: {
    status: 503,
    title: { en: 'Service unavailable', fr: 'Service indisponible' },
    detail: {
      en: 'A dependency is unavailable; retry later.',
      fr: 'Une dépendance est indisponible ; réessayez plus tard.',
    },
    help: {
      en: 'Retry after the delay in Retry-After with the same X-Idempotency-Key: nothing is done twice.',
      fr: "Réessayez après le délai indiqué par Retry-After avec la même X-Idempotency-Key : rien n'est fait deux fois.",
    },
  },
  ANSWER_PENDING: {
    status: 503,
    title: { en: 'Answer not taken yet', fr: 'Réponse pas encore prise en compte' },
    detail: {
      en: 'Your answer was received but the payment has not taken it into account yet. This page shows the result as soon as it has: do not pay twice.',
      fr: "Votre réponse a été reçue mais le paiement ne l'a pas encore prise en compte. Cette page affiche le résultat dès que c'est fait : ne payez pas deux fois.",
    },
    help: {
      en: 'Customer: keep the page open; it shows the result as soon as the payment has taken your answer. Do not pay twice.',
      fr: 'Client : gardez la page ouverte ; elle affiche le résultat dès que le paiement a pris en compte votre réponse. Ne payez pas deux fois.',
    },
  },
  DECISION_PENDING: {
    status: 503,
    title: { en: 'Not decided yet', fr: 'Pas encore décidé' },
    detail: {
      en: 'The payment could not decide on this request in time. Retry with the same X-Idempotency-Key: it is never applied twice.',
      fr: "Le paiement n'a pas pu statuer à temps sur cette demande. Réessayez avec la même X-Idempotency-Key : elle n'est jamais appliquée deux fois.",
    },
    help: {
      en: 'Retry after the delay in Retry-After with the same X-Idempotency-Key and body: the first request stays queued and is applied once.',
      fr: "Réessayez après le délai indiqué par Retry-After avec la même X-Idempotency-Key et le même corps : la première requête reste en file et n'est appliquée qu'une fois.",
    },
  },
  PROVIDER_UNAVAILABLE: {
    status: 503,
    title: { en: 'Provider unavailable', fr: 'Opérateur indisponible' },
    detail: {
      en: 'This mobile-money provider is temporarily unavailable; nothing was done. Retry after the delay in Retry-After, or use another provider.',
      fr: "Cet opérateur de mobile money est temporairement indisponible ; rien n'a été fait. Réessayez après le délai indiqué par Retry-After, ou utilisez un autre opérateur.",
    },
    help: {
      en: 'Retry after the delay in Retry-After, or use another provider of the country (GET /v1/providers shows which are up).',
      fr: 'Réessayez après le délai indiqué par Retry-After, ou utilisez un autre opérateur du pays (GET /v1/providers indique lesquels fonctionnent).',
    },
  },
  INTERNAL_ERROR: {
    status: 500,
    title: { en: 'Internal Server Error', fr: 'Erreur interne du serveur' },
    detail: { en: 'Server error; retry later.', fr: 'Erreur du serveur ; réessayez plus tard.' },
    help: {
      en: 'Retry later with the same X-Idempotency-Key: nothing is done twice. If it lasts, contact support with the time of the call and the instance of this problem.',
      fr: "Réessayez plus tard avec la même X-Idempotency-Key : rien n'est fait deux fois. Si cela dure, contactez le support avec l'heure de l'appel et l'instance de ce problème.",
    },
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
