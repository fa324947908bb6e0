import { useId, type ComponentProps, type ReactNode } from 'react';

export interface FieldControlProps {
  id: string;
  'aria-invalid': boolean | undefined;
  'aria-describedby': string | undefined;
}

interface FieldText {
  label: string;
  error?: string | undefined;
  hint?: string | undefined;
}

/** A labelled control with its hint and its error (from the server's problem) right under it. */
export function Field(
  props: FieldText & { inline?: boolean; children: (control: FieldControlProps) => ReactNode },
) {
  const id = useId();
  const hintId = props.hint ? `${id}-hint` : undefined;
  const errorId = props.error ? `${id}-error` : undefined;
  const describedBy = [hintId, errorId].filter(Boolean).join(' ') || undefined;
  return (
    <div className={props.inline ? 'field inline' : 'field'}>
      <label htmlFor={id}>{props.label}</label>
      {props.children({
        id,
        'aria-invalid': props.error ? true : undefined,
        'aria-describedby': describedBy,
      })}
      {props.hint && (
        <p className="hint" id={hintId}>
          {props.hint}
        </p>
      )}
      {props.error && (
        <p className="field-error" id={errorId}>
          {props.error}
        </p>
      )}
    </div>
  );
}

/** A text field's value, change and error, as `useFields().bind` gives them. */
export interface Bound {
  value: string;
  onChange: (value: string) => void;
  error?: string | undefined;
}

type InputProps = Omit<ComponentProps<'input'>, 'value' | 'onChange' | 'id'>;

/** A text-like <input> in its Field; `onChange` gets the new value. */
export function TextField(
  props: FieldText & InputProps & { value: string; onChange?: (value: string) => void },
) {
  const { label, error, hint, onChange, ...input } = props;
  return (
    <Field label={label} error={error} hint={hint}>
      {(p) => <input {...input} {...p} onChange={onChange && ((e) => onChange(e.target.value))} />}
    </Field>
  );
}

export interface Choice<V extends string> {
  value: V;
  label: string;
}

/** A <select> in its Field; `any` is the text of a first, empty choice (a filter left open). */
export function SelectField<V extends string>(
  props: FieldText & {
    value: V;
    onChange: (value: V) => void;
    choices: readonly Choice<V>[];
    any?: string;
    inline?: boolean;
  },
) {
  return (
    <Field label={props.label} error={props.error} hint={props.hint} inline={props.inline}>
      {(p) => (
        <select {...p} value={props.value} onChange={(e) => props.onChange(e.target.value as V)}>
          {props.any !== undefined && <option value="">{props.any}</option>}
          {props.choices.map((c) => (
            <option key={c.value} value={c.value}>
              {c.label}
            </option>
          ))}
        </select>
      )}
    </Field>
  );
}

/** Choices whose label is their value (HTTP methods, currencies, …). */
export const asChoices = <V extends string>(values: readonly V[]): Choice<V>[] =>
  values.map((value) => ({ value, label: value }));

/** A checkbox inside its label; `onChange` gets whether it is checked. */
export function Check(props: {
  checked: boolean;
  onChange: (checked: boolean) => void;
  disabled?: boolean;
  children: ReactNode;
}) {
  return (
    <label className="choice">
      <input
        type="checkbox"
        checked={props.checked}
        disabled={props.disabled}
        onChange={(e) => props.onChange(e.target.checked)}
      />
      {props.children}
    </label>
  );
}
