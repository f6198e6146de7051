#!/usr/bin/env bash
# The README's quick start as an operator meets it, in this checkout: `bash scripts/serve.sh`
# without a terminal (stdin is /dev/null) must install, build and start the server; /health and the
# admin UI answer; what the README runs next works against it (examples/client-usage.mjs,
# walkthrough.sh, mcp-walkthrough.mjs, agent-loop.mjs, and scripts/mcp.sh started by an MCP client
# as Claude Desktop starts it); SIGTERM stops it with exit code 0. .ci/run runs it on a fresh copy
# of the checkout before and after scripts/test.sh, so the two commands are known to compose.
#
# Usage: bash scripts/ci-serve-smoke.sh   (needs curl and jq, as the walkthrough does)
set -euo pipefail
cd "$(dirname "$0")/.."

say() { echo "ci-serve-smoke: $*" >&2; }
for tool in curl jq; do
  command -v "$tool" >/dev/null 2>&1 || { say "needs $tool (apt-get install $tool)"; exit 1; }
done
eval "$(bash scripts/toolchain.sh 2>/dev/null)"

work=$(mktemp -d "${TMPDIR:-/tmp}/cyrnel-serve-smoke-XXXXXX")
server_pid='' upstream_pid=''
cleanup() {
  if [ -n "$upstream_pid" ]; then kill "$upstream_pid" 2>/dev/null || true; fi
  if [ -n "$server_pid" ]; then kill "$server_pid" 2>/dev/null || true; fi
  wait 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

# Print what a failed step left in its log, then fail.
fail() {
  say "$1"
  shift
  for file in "$@"; do
    [ -s "$file" ] || continue
    echo "--- ${file#"$work"/} (last 40 lines)" >&2
    tail -n 40 "$file" >&2
  done
  exit 1
}

# Wait until file $1 holds a line matching $2 while process $3 runs (at most $4 seconds).
wait_for_line() {
  local file=$1 pattern=$2 pid=$3 deadline=$((SECONDS + $4))
  until grep -q -- "$pattern" "$file" 2>/dev/null; do
    kill -0 "$pid" 2>/dev/null || return 1
    [ "$SECONDS" -lt "$deadline" ] || return 1
    sleep 0.2
  done
}

started=$SECONDS
bash scripts/serve.sh --port 0 --data-dir "$work/data" --allow-private-urls \
  </dev/null >"$work/server.out" 2>"$work/server.err" &
server_pid=$!
wait_for_line "$work/server.out" '"msg":"listening"' "$server_pid" 1800 ||
  fail "serve.sh did not start the server" "$work/server.err" "$work/server.out"
url=$(grep -m1 '"msg":"listening"' "$work/server.out" | jq -r .url)
say "serve.sh: listening on $url after $((SECONDS - started)) s ($(grep -m1 '^build-runtime:\|Cached:' "$work/server.err" || echo 'nothing built'))"

[ "$(curl -sS --max-time 30 "$url/health")" = '{"status":"ok"}' ] || fail "/health did not answer ok" "$work/server.out"
curl -sS --fail --max-time 30 -o /dev/null "$url/ui/" || fail "the admin UI is not served" "$work/server.out"

PORT=0 node examples/upstream.mjs >"$work/upstream.out" 2>&1 &
upstream_pid=$!
wait_for_line "$work/upstream.out" 'listening on' "$upstream_pid" 60 ||
  fail "examples/upstream.mjs did not start" "$work/upstream.out"
upstream=$(sed -n 's/^weather upstream listening on \([^ ]*\) .*/\1/p' "$work/upstream.out")
export CYRNEL_URL=$url UPSTREAM_URL=$upstream

# What the README and examples/README run after the quick start, in an order each can follow.
run_example() {
  local name=$1
  shift
  "$@" >"$work/$name.log" 2>&1 </dev/null || fail "$name failed" "$work/$name.log" "$work/server.out"
  say "$name: ok"
}
run_example client-usage.mjs node examples/client-usage.mjs
run_example walkthrough.sh bash examples/walkthrough.sh
run_example mcp-walkthrough.mjs node examples/mcp-walkthrough.mjs
run_example agent-loop.mjs node examples/agent-loop.mjs 'What is the weather in Oslo, in Fahrenheit?'
# scripts/mcp.sh as an MCP client starts it: a command speaking MCP on stdin/stdout.
run_example mcp.sh node --input-type=module -e "
  import { Client } from '@modelcontextprotocol/client';
  import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
  const client = new Client({ name: 'ci-serve-smoke', version: '1.0.0' });
  await client.connect(new StdioClientTransport({ command: 'bash', args: ['scripts/mcp.sh', '--url', process.env.CYRNEL_URL], stderr: 'inherit' }));
  const found = await client.callTool({ name: 'search_tools', arguments: { query: 'weather forecast' } });
  const tools = found.structuredContent.tools.map((tool) => tool.tool);
  console.log(tools.join(', '));
  await client.close();
  if (!tools.includes('weather.getForecast')) throw new Error('search_tools did not find weather.getForecast');
"

kill -TERM "$server_pid"
code=0
wait "$server_pid" || code=$?
server_pid=''
[ "$code" -eq 0 ] || fail "the server exited with $code on SIGTERM" "$work/server.out" "$work/server.err"
say "stopped on SIGTERM (exit 0)"
