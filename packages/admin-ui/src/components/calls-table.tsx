import type { ToolCallRecord } from '@cyrnel/sdk/api';

/** A process's tool calls: the tool, ok or the failure's reason, the duration. */
export function CallsTable({ calls }: { calls: ToolCallRecord[] }) {
  if (calls.length === 0) return <p class="empty">No tool call.</p>;
  return (
    <table data-testid="calls">
      <thead>
        <tr>
          <th>Tool</th>
          <th>Result</th>
          <th>Duration</th>
        </tr>
      </thead>
      <tbody>
        {calls.map((call, index) => (
          <tr key={index}>
            <td>
              {call.serviceId}.{call.toolId}
            </td>
            <td>
              {call.ok ? (
                <span class="pill on">ok</span>
              ) : (
                <span class="pill bad">{call.errorReason ?? 'failed'}</span>
              )}
            </td>
            <td>{call.durationMs} ms</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
