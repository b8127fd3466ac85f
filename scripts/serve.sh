#!/usr/bin/env bash
# Sets up what is missing, then builds the explorer (release: the sweeps need an
# optimised engine) and serves it at http://127.0.0.1:8080/ until interrupted.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
source scripts/env.sh
exec trunk serve --release "$@"
