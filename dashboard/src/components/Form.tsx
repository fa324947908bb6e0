import type { ComponentProps, FormEvent } from 'react';

/**
 * A form that stays on the page: `onSubmit` runs the action. The browser's own validation is off by
 * default, so the server's errors (localized, next to their fields) are the only ones shown.
 * With `submit`, the form ends with its submit button (primary unless `quiet`).
 */
export function Form(
  props: Omit<ComponentProps<'form'>, 'onSubmit'> & {
    onSubmit: () => void;
    submit?: string;
    disabled?: boolean;
    quiet?: boolean;
  },
) {
  const { onSubmit, submit, disabled, quiet, children, noValidate = true, ...form } = props;
  const handle = (e: FormEvent) => {
    e.preventDefault();
    onSubmit();
  };
  return (
    <form {...form} noValidate={noValidate} onSubmit={handle}>
      {children}
      {submit !== undefined && (
        <div className="actions">
          <button type="submit" className={quiet ? undefined : 'button-primary'} disabled={disabled}>
            {submit}
          </button>
        </div>
      )}
    </form>
  );
}
