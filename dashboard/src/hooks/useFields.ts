import { useState } from 'react';
import { fieldErrors } from '../api/http';

/**
 * A form's values in one state. `bind(name)` wires a field: its value, its change, and the error the
 * server's problems (the form's actions' errors; a later one wins) give for the field of that name.
 * It comes after those actions, whose success handlers may still set or reset it (they run later).
 */
export function useFields<V extends Record<string, string>>(initial: V | (() => V), ...problems: unknown[]) {
  const [values, setValues] = useState<V>(initial);
  const errors = problems.reduce<Record<string, string>>((all, p) => ({ ...all, ...fieldErrors(p) }), {});
  const set = <K extends keyof V>(name: K, value: V[K]) => setValues((v) => ({ ...v, [name]: value }));
  return {
    values,
    errors,
    set,
    bind: <K extends keyof V & string>(name: K) => ({
      value: values[name],
      onChange: (value: V[K]) => set(name, value),
      error: errors[name],
    }),
    reset: (next: V) => setValues(next),
  };
}
