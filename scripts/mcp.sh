#!/usr/bin/env bash
# cyrnel as a stdio MCP server, for MCP clients that start a command (Claude Desktop, Claude
# Code, Cursor, VS Code): `bash scripts/mcp.sh --url http://127.0.0.1:9371` (or CYRNEL_URL,
# CYRNEL_API_KEY). stdout carries only the protocol: provisioning and building log to stderr,
# and the build runs only when the server is not built yet.
set -euo pipefail
cd "$(dirname "$0")/.."
eval "$(bash scripts/toolchain.sh)"
if [ ! -f apps/server/dist/cli.js ]; then bash scripts/prepare-server.sh; fi
exec node apps/server/dist/cli.js mcp "$@"
