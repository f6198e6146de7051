#!/usr/bin/env bash
# `pnpm cyrnel-server <arguments>` in a checkout: the server's binary, cyrnel-server, with those
# arguments, run in the folder pnpm was started from (so that relative paths, such as the folder
# of `module init ./echo-tools`, are the caller's). Builds the server first when it is not built
# yet (scripts/prepare-server.sh, as scripts/serve.sh does). MCP clients start scripts/mcp.sh
# instead: pnpm prints its own lines on stdout, which the protocol owns.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
if [ ! -f "$root/apps/server/dist/cli.js" ]; then
  (cd "$root" && bash scripts/prepare-server.sh)
fi
cd "${INIT_CWD:-$PWD}"
exec node "$root/apps/server/dist/cli.js" "$@"
