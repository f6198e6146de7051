import type { CatalogStorage } from './catalog-storage';
import type { MemoryService } from './memory-catalog-rows';

/**
 * The learned result shapes of the in-memory catalog: kept as JSON text on each tool, so that
 * `updateObservedOutput` compares what is stored as a store's column does.
 */
export function memoryObservedOutputMethods(
  services: ReadonlyMap<string, MemoryService>,
): Pick<CatalogStorage, 'setServiceObserveOutputs' | 'updateObservedOutput'> {
  return {
    async setServiceObserveOutputs(serviceId, observe) {
      const service = services.get(serviceId);
      if (!service) return false;
      service.row = { ...service.row, observeOutputs: observe };
      for (const tool of service.tools) delete tool.observedOutput;
      return true;
    },
    async updateObservedOutput(serviceId, toolId, expected, next) {
      const service = services.get(serviceId);
      const tool = service?.byId.get(toolId);
      if (!service?.row.observeOutputs || !tool) return false;
      const stored = tool.observedOutput ?? null;
      if (stored !== (expected === null ? null : JSON.stringify(expected))) return false;
      tool.observedOutput = JSON.stringify(next);
      return true;
    },
  };
}
