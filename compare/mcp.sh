#!/usr/bin/env bash
# Regenerates the "MCP skill reads, side by side" section of docs/comparison.md: one
# whole skill read over MCP, every file verified, by this SDK (mcpclient.ReadSkill)
# and by the official TypeScript SDK's SkillsClient, from the TypeScript skills server
# and from skillserver, with the bare go-sdk's reads as the floor (see
# compare/mcpreads.go).
#
# Installs the TypeScript SDK from interop/package-lock.json (interop/setup.sh, npm
# ci, exact versions), builds the harness, and runs it. Arguments are passed to it:
#   -form short   (default) a 32-file, 1 MiB skill, 3 runs: the CI form; the table is
#                 printed, docs/comparison.md is left as it is
#   -form long    SKILL.md and 511 files, 16 MiB, 5 runs; the table is written into
#                 docs/comparison.md
#   -mcp-runs N   timed runs per reader
# Exit status: 1 when a reader failed or this SDK missed a bar; 2 on a setup error.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
repo="$(dirname "$here")"

node22="$(bash "$repo/interop/setup.sh")"
work="$(mktemp -d "${TMPDIR:-/tmp}/wellknown-mcp-compare-XXXXXX")"
trap 'rm -rf "$work"' EXIT
(cd "$repo" && go build -o "$work/compare" ./compare)

out=()
if [[ " $* " == *" -form long "* ]]; then
    out=(-out "$repo/docs/comparison.md")
fi
"$work/compare" -mcp -node "$node22" -interop "$repo/interop" "${out[@]}" "$@"
