#!/usr/bin/env bash
# What `pnpm release` would publish, checked without publishing and without an npm token (CI runs
# it after `pnpm build`): every publishable package (not private, not in .changeset/config.json's
# ignore) packs whole (scripts/pack.mjs checks each tarball), and `pnpm publish -r --dry-run`
# (npm's own checks of each package, provenance settings included) goes through for each one
# whose version is not on the npm registry yet. Fails naming any package that would not publish.
set -euo pipefail
cd "$(dirname "$0")/.."
eval "$(bash scripts/toolchain.sh)"

work=$(mktemp -d)
summary=pnpm-publish-summary.json
trap 'rm -rf "$work" "$summary"' EXIT

# The tarballs, as users install them: versions instead of workspace:, every file in place.
node scripts/pack.mjs pack "$work/packed" >/dev/null

# A dry run reads the registry (to skip versions already published) but needs no login.
rm -f "$summary"
pnpm publish -r --dry-run --no-git-checks --report-summary >"$work/publish.log" 2>&1 || {
  cat "$work/publish.log" >&2
  echo "publish-dry-run: pnpm publish --dry-run failed" >&2
  exit 1
}

missing=()
while read -r name version; do
  if node -e '
    const [name, version] = process.argv.slice(1);
    const { publishedPackages = [] } = JSON.parse(require("fs").readFileSync(process.argv[3], "utf8"));
    process.exit(publishedPackages.some((p) => p.name === name && p.version === version) ? 0 : 1);
  ' "$name" "$version" "$summary"; then
    continue
  fi
  # Not in the dry run: fine only when that version is on the registry already.
  if [ "$(npm view "$name@$version" version 2>/dev/null || true)" = "$version" ]; then
    echo "publish-dry-run: $name@$version is on the registry already" >&2
    continue
  fi
  missing+=("$name@$version")
done < <(node scripts/pack.mjs list)

if [ ${#missing[@]} -gt 0 ]; then
  cat "$work/publish.log" >&2
  echo "publish-dry-run: would not publish: ${missing[*]}" >&2
  exit 1
fi
echo "publish-dry-run: $(node scripts/pack.mjs list | wc -l | tr -d ' ') packages would publish (or are published)"
