// A table drawn from TanStack Table's models, in the page's one table frame.
import { tableFeatures, useTable, type ColumnDef, type RowData } from '@tanstack/react-table';
import { useTranslation } from 'react-i18next';
import { Table } from './Table';

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
    <Table
      caption={props.caption}
      // The page's columns are flat: one row of headers.
      headers={table
        .getHeaderGroups()
        .flatMap((group) => group.headers)
        .map((header) => (header.isPlaceholder ? null : <table.FlexRender header={header} />))}
      busy={props.loading}
      empty={rows.length === 0 && (props.loading ? t('common.loading') : (props.empty ?? t('common.empty')))}
    >
      {rows.map((row) => (
        <tr key={row.id}>
          {row.getAllCells().map((cell) => (
            <td key={cell.id}>
              <table.FlexRender cell={cell} />
            </td>
          ))}
        </tr>
      ))}
    </Table>
  );
}
