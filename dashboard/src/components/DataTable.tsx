// A plain, accessible <table> (caption, column headers) drawn from TanStack Table's models.
import { tableFeatures, useTable, type ColumnDef, type RowData } from '@tanstack/react-table';
import { useTranslation } from 'react-i18next';

export const features = tableFeatures({});
export type Columns<T extends RowData> = ColumnDef<typeof features, T, unknown>[];

export function DataTable<T extends RowData>(props: {
  caption: string;
  columns: Columns<T>;
  data: T[];
  rowKey: (row: T) => string;
  loading?: boolean;
  empty?: string;
}) {
  const { t } = useTranslation();
  const table = useTable({ features, columns: props.columns, data: props.data, getRowId: props.rowKey });
  const rows = table.getRowModel().rows;
  return (
    <div className="table-wrap" tabIndex={0}>
      <table>
        <caption>{props.caption}</caption>
        <thead>
          {table.getHeaderGroups().map((group) => (
            <tr key={group.id}>
              {group.headers.map((header) => (
                <th key={header.id} scope="col">
                  {header.isPlaceholder ? null : <table.FlexRender header={header} />}
                </th>
              ))}
            </tr>
          ))}
        </thead>
        <tbody aria-busy={props.loading ? true : undefined}>
          {rows.length === 0 ? (
            <tr>
              <td colSpan={props.columns.length} className="empty">
                {props.loading ? t('common.loading') : (props.empty ?? t('common.empty'))}
              </td>
            </tr>
          ) : (
            rows.map((row) => (
              <tr key={row.id}>
                {row.getAllCells().map((cell) => (
                  <td key={cell.id}>
                    <table.FlexRender cell={cell} />
                  </td>
                ))}
              </tr>
            ))
          )}
        </tbody>
      </table>
    </div>
  );
}
