import { useState } from 'react';
import { useFields } from './useFields';

/**
 * A filter bar's state: what is typed is applied only on submit, so the list is not asked again at
 * each keystroke.
 */
export function useFilters<F extends Record<string, string>>(none: F) {
  const fields = useFields(none);
  const [applied, setApplied] = useState<F>(none);
  return {
    bind: fields.bind,
    applied,
    apply: () => setApplied(fields.values),
    /** Saved filters applied again: typed into the form and applied at once. */
    load: (values: F) => {
      fields.reset(values);
      setApplied(values);
    },
    clear: () => {
      fields.reset(none);
      setApplied(none);
    },
  };
}
