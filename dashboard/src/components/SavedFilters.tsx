// A member's saved filters of a list (GET/POST/DELETE /dashboard/api/saved-filters): apply one
// again, save the filters applied now under a name, remove one. They are the member's own.
import { useQuery, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { dashboardApi, type FilterList } from '../api/dashboard';
import { fieldErrors } from '../api/http';
import { useAction } from '../actions';
import { SelectField, TextField } from './Field';
import { Form } from './Form';
import { ProblemAlert } from './ProblemAlert';

export function SavedFilters<F extends Record<string, string>>(props: {
  list: FilterList;
  /** The filters applied now (what saving keeps). */
  applied: F;
  /** The form's empty filters: a saved set fills in what it names. */
  none: F;
  onApply: (filters: F) => void;
}) {
  const { t } = useTranslation();
  const client = useQueryClient();
  const key = ['saved-filters', props.list];
  const saved = useQuery({ queryKey: key, queryFn: () => dashboardApi.savedFilters(props.list) });
  const [chosen, setChosen] = useState('');
  const [name, setName] = useState('');
  const refresh = () => void client.invalidateQueries({ queryKey: key });
  const save = useAction(
    (v: { name: string }) =>
      dashboardApi.saveFilters({
        list: props.list,
        name: v.name,
        // Empty filters are left out: the saved set names only what narrows the list.
        filters: Object.fromEntries(Object.entries(props.applied).filter(([, value]) => value !== '')),
      }),
    (created) => {
      setName('');
      setChosen(created.id);
      refresh();
    },
  );
  const remove = useAction(
    (v: { id: string }) => dashboardApi.removeSavedFilters(v.id),
    () => {
      setChosen('');
      refresh();
    },
  );
  const items = saved.data?.data ?? [];
  const current = items.find((s) => s.id === chosen);
  return (
    <details className="saved-filters">
      <summary>{t('savedFilters.title')}</summary>
      <div className="actions">
        <SelectField
          inline
          label={t('savedFilters.choose')}
          any={items.length === 0 ? t('savedFilters.none') : t('savedFilters.pick')}
          value={chosen}
          onChange={setChosen}
          choices={items.map((s) => ({ value: s.id, label: s.name }))}
        />
        <button
          type="button"
          disabled={!current}
          onClick={() => current && props.onApply({ ...props.none, ...current.filters })}
        >
          {t('savedFilters.apply')}
        </button>
        <button
          type="button"
          disabled={!current || remove.isPending}
          onClick={() => remove.run({ id: chosen })}
        >
          {t('savedFilters.remove')}
        </button>
      </div>
      <Form
        onSubmit={() => save.run({ name })}
        submit={t('savedFilters.save')}
        disabled={save.isPending}
        quiet
        className="saved-filters-save"
      >
        <TextField
          label={t('savedFilters.name')}
          hint={t('savedFilters.hint')}
          value={name}
          onChange={setName}
          maxLength={60}
          error={fieldErrors(save.error).name}
        />
      </Form>
      <ProblemAlert error={saved.error ?? save.error ?? remove.error} shownFields={['name']} />
    </details>
  );
}
