#!/usr/bin/env bash
# The main job: `squall run` over Scenarios/ against the embedded reference server.
# Extra arguments go to `squall run` (e.g. --filter NAME, --json FILE).
set -euo pipefail
cd "$(dirname "$0")/.."

Tools/setup.sh
export PATH="/opt/swift/usr/bin:$PATH"

swift build --product squall
.build/debug/squall run "$@"
