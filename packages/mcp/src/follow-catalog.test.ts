import { McpServer } from '@modelcontextprotocol/server';
import { describe, expect, it, vi } from 'vitest';
import { createCatalogWatch } from './catalog-watch';
import { followCatalog } from './follow-catalog';

/**
 * A catalog that can change right after the next look (an install landing between a look and
 * the refresh it starts) and right after the next rendering (a removal landing before the next
 * look), and the description a server instance holds, refreshed as the real one is.
 */
function catalogUnderChange(describes: boolean) {
  let catalog = 'shop';
  const after: { look?: string; render?: string } = {};
  const told: string[] = [];
  const state = { description: 'shop', looks: 0 };
  const watch = createCatalogWatch({
    describes,
    pollMs: 5,
    version: () => {
      const seen = catalog;
      state.looks++;
      if (after.look !== undefined) catalog = after.look;
      delete after.look;
      return seen;
    },
  });
  const refresh = async (rendered?: string) => {
    const description = rendered ?? catalog;
    if (after.render !== undefined) catalog = after.render;
    delete after.render;
    if (description === state.description) return false;
    state.description = description;
    told.push(description);
    return true;
  };
  return {
    watch,
    refresh,
    told,
    state,
    after,
    set: (next: string) => {
      catalog = next;
    },
  };
}

describe('followCatalog', () => {
  it('ends with the catalog as it stands when it changed between a look and its refresh and back before the next look', async () => {
    const catalog = catalogUnderChange(true);
    const server = new McpServer({ name: 'follow-catalog', version: '1.0.0' });
    // The first look tells 'shop+market'; the removal lands between it and its refresh, and
    // the install again right after that refresh: every later look tells 'shop+market'.
    catalog.set('shop+market');
    catalog.after.look = 'shop';
    catalog.after.render = 'shop+market';
    followCatalog(server, catalog.watch, catalog.refresh);
    await vi.waitFor(() => expect(catalog.state.looks).toBeGreaterThan(3));
    expect(catalog.state.description).toBe('shop+market');
    expect(catalog.told).toEqual(['shop+market']);
    // A removal afterwards is told as well.
    catalog.set('shop');
    await vi.waitFor(() => expect(catalog.state.description).toBe('shop'));
    expect(catalog.told).toEqual(['shop+market', 'shop']);
    catalog.watch.close();
  });

  it('renders again at each new version when the versions are tokens, not descriptions', async () => {
    const catalog = catalogUnderChange(false);
    const server = new McpServer({ name: 'follow-catalog', version: '1.0.0' });
    const refresh = vi.fn(catalog.refresh);
    followCatalog(server, catalog.watch, refresh);
    await vi.waitFor(() => expect(refresh).toHaveBeenCalledTimes(1));
    expect(refresh).toHaveBeenLastCalledWith(undefined);
    catalog.set('shop+market');
    await vi.waitFor(() => expect(catalog.told).toEqual(['shop+market']));
    expect(refresh).toHaveBeenLastCalledWith(undefined);
    catalog.watch.close();
  });
});
