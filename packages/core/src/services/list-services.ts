import type { ServiceRow } from '../catalog/catalog-storage';
import { decodeCursor, pageLimit, toPage } from '../catalog/page';
import type { ServicesApi } from '../host/host-api';
import { optionalBoolean, optionalString, queryObject } from '../validation/input';
import type { ServiceContext } from './service-context';

/**
 * `list`: a page of services by id. `failed` filters on what this host knows of their hydration,
 * which the store does not hold: the few failed ones are read one by one and filtered here.
 */
export function createListServices(ctx: ServiceContext): ServicesApi['list'] {
  const { catalog, health, views } = ctx;
  return async (rawQuery) => {
    const query = queryObject(rawQuery);
    const limit = pageLimit(query.limit);
    const afterId = query.cursor === undefined ? undefined : decodeCursor(query.cursor, 1)[0];
    const failed = optionalBoolean(query.failed, 'failed');
    const failures = health.failed();
    const filters = {
      query: optionalString(query.query, 'query'),
      enabled: optionalBoolean(query.enabled, 'enabled'),
      adapter: optionalString(query.adapter, 'adapter'),
    };
    let rows: ServiceRow[];
    if (failed === true) {
      // Few and in memory: read them one by one, then filter and page like the store would.
      const found = await Promise.all(failures.map((id) => catalog.getService(id)));
      const text = filters.query?.toLowerCase();
      rows = found.filter(
        (row): row is ServiceRow =>
          row !== undefined &&
          (afterId === undefined || row.id > afterId) &&
          (filters.enabled === undefined || row.enabled === filters.enabled) &&
          (filters.adapter === undefined || row.adapter === filters.adapter) &&
          (text === undefined ||
            [row.id, row.name, row.description].some((field) => field.toLowerCase().includes(text))),
      );
    } else {
      // At most `failures.length` rows are left out: ask for that many more.
      const extra = failed === false ? failures.length : 0;
      rows = await catalog.listServices({ ...filters, afterId, limit: limit + 1 + extra });
      if (failed === false) rows = rows.filter((row) => health.error(row.id) === undefined);
    }
    return toPage(rows.slice(0, limit + 1), limit, (row) => [row.id], views.record);
  };
}
