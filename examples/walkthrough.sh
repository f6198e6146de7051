#!/usr/bin/env bash
# The five-minute walkthrough with curl. The root README shows the part below the `set` line
# verbatim, and e2e/test/newcomer.test.ts runs this file as the README does (serve.sh), so the
# documented commands are the tested ones: each `# → ` comment is a line the command above it
# prints, exactly, and the test fails when the output differs. Needs curl and jq, a running cyrnel allowed to
# download from 127.0.0.1, and the example upstream:
#
#   CYRNEL_ALLOW_PRIVATE_URLS=true node apps/server/dist/cli.js --data-dir /tmp/cyrnel-demo
#   node examples/upstream.mjs
#   bash examples/walkthrough.sh                                # install from the URL
#   bash examples/walkthrough.sh examples/weather.openapi.json  # or from the file
#
# Environment: CYRNEL_URL (default http://127.0.0.1:9371), UPSTREAM_URL (default
# http://127.0.0.1:8787), CYRNEL_API_KEY (when the server has one).
set -euo pipefail

CYRNEL=${CYRNEL_URL:-http://127.0.0.1:9371}
UPSTREAM=${UPSTREAM_URL:-http://127.0.0.1:8787}
# curl with what every call needs: fail on 4xx/5xx (printing the error), JSON, the API key.
api() {
  curl -sS --fail-with-body -H 'content-type: application/json' \
    ${CYRNEL_API_KEY:+-H "authorization: Bearer $CYRNEL_API_KEY"} "$@"
}
# Re-runnable: drop an earlier `weather` (a 404 the first time is fine).
api -X DELETE "$CYRNEL/services/weather" > /dev/null 2>&1 || true

# 1. Install the service from the upstream's URL (cyrnel downloads the document)...
if [ $# -eq 0 ]; then
  request=$(jq -n --arg url "$UPSTREAM/openapi.json" '{id: "weather", adapter: "openapi", url: $url}')
else # ...or from a file: the definition travels as a string, the base URL as config.
  request=$(jq -Rs --arg base "$UPSTREAM" \
    '{id: "weather", adapter: "openapi", definition: ., config: {baseUrl: $base}}' "$1")
fi
api "$CYRNEL/services" -d "$request" | jq -c '{id, enabled, toolCount, secrets: (.secretsSchema.properties | keys)}'
# → {"id":"weather","enabled":false,"toolCount":2,"secrets":["apiKey","headers"]}

# Each operation became a tool; its docs are the Markdown an LLM reads.
api "$CYRNEL/tools?serviceId=weather" | jq -c '[.items[].id]'
# → ["celsiusToFahrenheit","getForecast"]
api "$CYRNEL/tools/weather/getForecast/docs" | grep 'invoke('   # the docs' example
# →   const result = await cyrnel.services.weather.tools.getForecast.invoke({

# 2. Set the secret: a JSON Patch; stored encrypted, never returned (only which are set).
api -X PATCH "$CYRNEL/services/weather/secrets" -d '[{"op": "add", "path": "/apiKey", "value": "demo-key"}]' | jq -c .
# → {"updated":true}
api "$CYRNEL/services/weather/secrets" | jq -c .
# → {"present":["/apiKey"]}

# 3. Enable it (config and secrets are validated now).
api -X POST "$CYRNEL/services/weather/enabled" -d '{"enabled": true}' | jq -c '{id, enabled}'
# → {"id":"weather","enabled":true}

# 4. Run code that calls two tools. It runs in a sandbox whose only way out is
#    cyrnel.services.<service>.tools.<tool>.invoke(); only what it passes to cyrnel.output()
#    comes back. With "wait": true the answer comes once the process has finished.
code=$(cat <<'TS'
const forecast = await cyrnel.services.weather.tools.getForecast.invoke({ query: { city: 'Lima' } });
const converted = await cyrnel.services.weather.tools.celsiusToFahrenheit.invoke({
  query: { celsius: forecast.body.celsius },
});
console.log('two calls done');
cyrnel.output({ city: forecast.body.city, fahrenheit: converted.body.fahrenheit });
TS
)
run=$(api "$CYRNEL/processes" -d "$(jq -n --arg code "$code" '{code: $code, wait: true}')")
jq -c '{exitState, error, output, stdout}' <<< "$run"
# → {"exitState":"success","error":null,"output":{"city":"Lima","fahrenheit":64.4},"stdout":"two calls done\n"}

# 5. Read the results again later, by the process id.
id=$(jq .id <<< "$run")
api "$CYRNEL/processes/$id/output" | jq -c .
# → {"city":"Lima","fahrenheit":64.4}
api "$CYRNEL/processes/$id/calls" | jq -c '[.items[] | {toolId, ok}]'
# → [{"toolId":"getForecast","ok":true},{"toolId":"celsiusToFahrenheit","ok":true}]
api "$CYRNEL/processes/$id/events" | grep '^event:' | paste -sd ' '   # SSE: a finished run is replayed
# → event: state event: stdout event: output event: exit

# What an agent reads before writing code: the runtime docs (Markdown) and the declaration of
# the `cyrnel` global with every enabled tool typed.
api "$CYRNEL/environment/docs" | sed -n 1p   # its title line
# → # typescript-ivm runtime
api "$CYRNEL/environment/types" | grep -o '[A-Za-z]*: { invoke(parameters: [^)]*)'
# → celsiusToFahrenheit: { invoke(parameters: { query: { celsius: number } })
# → getForecast: { invoke(parameters: { query: { city: string } })
