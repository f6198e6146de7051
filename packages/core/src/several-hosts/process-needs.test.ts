import { describe, expect, it } from 'vitest';
import { MAX_NAMED_SERVICES, namedServices } from './process-needs';

describe('namedServices', () => {
  it('finds services written out in dot, optional and bracket form, once each, in order', () => {
    const code = `
      const a = await cyrnel.services.github.tools.getRepo.invoke({});
      await cyrnel.services?.slack.tools.post.invoke({});
      await cyrnel.services['my-api'].tools.x.invoke({});
      await cyrnel.services?.["stripe"].tools.y.invoke({});
      await cyrnel.services.github.tools.other.invoke({});
    `;
    expect(namedServices(code)).toEqual(['github', 'slack', 'my-api', 'stripe']);
  });

  it('does not see names built at run time, and stops at the bound on hostile code', () => {
    expect(namedServices('const s = "git" + "hub"; await cyrnel.services[s].tools.x.invoke({})')).toEqual([]);
    const many = Array.from({ length: 5_000 }, (_, i) => `cyrnel.services.s${i}`).join(';');
    expect(namedServices(many)).toHaveLength(MAX_NAMED_SERVICES);
    // Linear on a long run of what almost matches (no backtracking blow-up).
    expect(namedServices(`services[${"'".repeat(50_000)}`)).toEqual([]);
  });
});
