import type { PlanTool } from '@cyrnel/sdk/api';
import { PolicyPill } from './policy-pill';

/**
 * A plan's tools (each with its effective policy, labels and lines) and the call sites whose
 * tool is only known at run time.
 */
export function PlanTools({
  tools,
  unknown,
}: {
  tools: readonly PlanTool[];
  unknown: readonly { line: number; text: string }[];
}) {
  return (
    <>
      <h2>Tools the program can call</h2>
      {tools.length === 0 ? (
        <p class="empty">No tool call found.</p>
      ) : (
        <div class="table-scroll">
          <table data-testid="plan-tools">
            <thead>
              <tr>
                <th>Tool</th>
                <th>Policy</th>
                <th>Labels</th>
                <th>Lines</th>
              </tr>
            </thead>
            <tbody>
              {tools.map((tool) => (
                <tr key={`${tool.serviceId}.${tool.toolId}`}>
                  <td>
                    <code>
                      {tool.serviceId}.{tool.toolId}
                    </code>
                    {tool.known ? null : <span class="pill bad">not installed</span>}
                  </td>
                  <td>
                    <PolicyPill policy={tool.effectivePolicy} />
                  </td>
                  <td>{tool.labels.join(', ')}</td>
                  <td>{tool.lines.join(', ')}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      <h2>Call sites whose tool is computed at run time</h2>
      {unknown.length === 0 ? (
        <p class="empty">None: every call names its tool.</p>
      ) : (
        <table data-testid="plan-unknown">
          <tbody>
            {unknown.map((site) => (
              <tr key={site.line}>
                <td>line {site.line}</td>
                <td>
                  <code>{site.text}</code>
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      )}
    </>
  );
}
