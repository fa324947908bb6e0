import { languages, type Language, type Text } from '../contract/i18n';
import { problemCatalogue, type Catalogue, type ProblemCode } from '../contract/problems';

// The error reference every problem's `type` points to (`/docs/errors#CODE`): one entry per code
// of the catalogue, so it can never lag behind the errors the API answers.

export interface ErrorReferenceEntry {
  code: ProblemCode;
  status: number;
  title: string;
  detail: string | null;
  help: string;
  /** Where this entry is, as a problem's `type` names it. */
  type: string;
}

/** The reference in one language, in the catalogue's order. */
export function errorReference(lang: Language): ErrorReferenceEntry[] {
  return (Object.entries(problemCatalogue) as [ProblemCode, Catalogue][]).map(([code, entry]) => ({
    code,
    status: entry.status,
    title: entry.title[lang],
    detail: entry.detail?.[lang] ?? null,
    help: entry.help[lang],
    type: `/docs/errors#${code}`,
  }));
}

const page: Record<string, Text> = {
  heading: { en: 'Error reference', fr: 'Référence des erreurs' },
  intro: {
    en: 'Every error of the API is an RFC 9457 problem document (application/problem+json). Its code is stable and meant for programs; title, detail and errors[].message follow Accept-Language (en or fr). Its type links to the entry below.',
    fr: "Chaque erreur de l'API est un document de problème RFC 9457 (application/problem+json). Son code est stable et destiné aux programmes ; title, detail et errors[].message suivent Accept-Language (en ou fr). Son type renvoie à l'entrée ci-dessous.",
  },
  status: { en: 'HTTP status:', fr: 'Statut HTTP :' },
  whatToDo: { en: 'What to do', fr: 'Que faire' },
  otherLanguage: { en: 'Version française', fr: 'English version' },
  json: { en: 'As JSON', fr: 'En JSON' },
  api: { en: 'API reference', fr: "Référence de l'API" },
};

const escapeHtml = (s: string) =>
  s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** The reference as one HTML page, an anchor (`id`) per code. */
export function errorReferenceHtml(lang: Language): string {
  const other = languages.find((l) => l !== lang)!;
  const text = (key: string) => escapeHtml(page[key]![lang]);
  const entries = errorReference(lang);
  const toc = entries.map((e) => `<li><a href="#${e.code}">${e.code}</a></li>`).join('');
  const sections = entries
    .map(
      (e) => `<section id="${e.code}">
<h2><a href="#${e.code}">${e.code}</a></h2>
<p><strong>${text('status')} ${e.status}</strong> · ${escapeHtml(e.title)}</p>
${e.detail ? `<p>${escapeHtml(e.detail)}</p>` : ''}
<h3>${text('whatToDo')}</h3>
<p>${escapeHtml(e.help)}</p>
</section>`,
    )
    .join('\n');
  return `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${text('heading')}</title>
<style>
body{font-family:system-ui,sans-serif;max-width:50rem;margin:2rem auto;padding:0 1rem;line-height:1.5}
section{border-top:1px solid #ddd;padding-top:.5rem}section:target{background:#fff8d6}
h2{font-family:ui-monospace,monospace;font-size:1.1rem}h3{font-size:1rem;margin-bottom:0}
ul.toc{columns:2;font-family:ui-monospace,monospace;font-size:.9rem}
</style>
</head>
<body>
<h1>${text('heading')}</h1>
<p><a href="/docs/errors?lang=${other}" hreflang="${other}">${text('otherLanguage')}</a> · <a href="/docs/errors.json?lang=${lang}">${text('json')}</a> · <a href="/docs">${text('api')}</a></p>
<p>${text('intro')}</p>
<ul class="toc">${toc}</ul>
${sections}
</body>
</html>`;
}
