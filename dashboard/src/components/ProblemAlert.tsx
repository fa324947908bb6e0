import { useTranslation } from 'react-i18next';
import { ProblemError } from '../api/http';

/**
 * A problem from the server, in the page's language (the server localizes `detail` by
 * Accept-Language). Errors of fields the form shows itself are left to those fields.
 */
export function ProblemAlert(props: { error: unknown; shownFields?: readonly string[] }) {
  const { t } = useTranslation();
  if (!props.error) return null;
  if (!(props.error instanceof ProblemError))
    return (
      <div role="alert" className="alert alert-error">
        {t('problem.unexpected')}
      </div>
    );
  const { problem, retryAfter } = props.error;
  const shown = new Set(props.shownFields ?? []);
  const others = (problem.errors ?? []).filter((e) => {
    const last =
      e.path
        .split(/[.[\]/]/)
        .filter(Boolean)
        .pop() ?? e.path;
    return !shown.has(e.path) && !shown.has(last);
  });
  // A detail that is a field's own message is said once, under that field.
  const detail =
    problem.detail && !(problem.errors ?? []).some((e) => e.message === problem.detail && !others.includes(e))
      ? ` ${problem.detail}`
      : '';
  return (
    <div role="alert" className="alert alert-error">
      <p>
        <strong>{problem.status === 0 ? t('problem.network') : problem.title}</strong>
        {detail}
      </p>
      {others.length > 0 && (
        <ul>
          {others.map((e) => (
            <li key={`${e.path}:${e.message}`}>
              <code>{e.path}</code>: {e.message}
            </li>
          ))}
        </ul>
      )}
      {retryAfter !== null && (
        <p>
          {retryAfter >= 90
            ? t('problem.retryAfterMinutes', { count: Math.ceil(retryAfter / 60) })
            : t('problem.retryAfter', { count: retryAfter })}
        </p>
      )}
    </div>
  );
}
