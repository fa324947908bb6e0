import { useTranslation } from 'react-i18next';
import { TextField, type Bound } from './Field';

/** From and to, both days included, as required date inputs. */
export function PeriodFields(props: { from: Bound; to: Bound }) {
  const { t } = useTranslation();
  return (
    <>
      <TextField label={t('fields.from')} type="date" required {...props.from} />
      <TextField label={t('fields.toInclusive')} type="date" required {...props.to} />
    </>
  );
}
