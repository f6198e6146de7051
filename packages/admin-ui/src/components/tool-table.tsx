import type { ToolRecord } from '@cyrnel/sdk/api';
import { Pill } from './pill';
import { PolicyPill } from './policy-pill';

/**
 * Tools as rows linking to their pages, with their first line of description, whether callable
 * and the policy their calls have.
 */
export function ToolTable({ tools }: { tools: ToolRecord[] }) {
  if (tools.length === 0) return <p class="empty">No tool.</p>;
  return (
    <table>
      <tbody>
        {tools.map((tool) => (
          <tr key={`${tool.serviceId}.${tool.id}`}>
            <td>
              <a href={`#/tools/${encodeURIComponent(tool.serviceId)}/${encodeURIComponent(tool.id)}`}>
                {tool.serviceId}.{tool.id}
              </a>
            </td>
            <td>{tool.description.split('\n')[0]}</td>
            <td>
              <Pill on={tool.effectivelyEnabled} yes="callable" no="off" />
            </td>
            <td>
              <PolicyPill policy={tool.effectivePolicy} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
