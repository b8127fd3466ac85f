#!/usr/bin/env bash
# Runs every check the project promises, after installing what a fresh machine lacks:
# formatting, lints (native and wasm32), all native tests, the browser component tests
# (wasm-bindgen-test in headless Chromium), the release build of the page with its
# bundle size, the end-to-end WebDriver test of that build, and the validation report
# against published measurements.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
source scripts/env.sh

step() { printf '\n[test] %s\n' "$*"; }

step "format"
cargo fmt --all -- --check
step "lints"
cargo clippy --workspace --all-targets -- -D warnings
cargo clippy --target wasm32-unknown-unknown -p disagg-explorer --all-targets -- -D warnings
step "native tests"
cargo test --workspace
step "browser component tests (headless Chromium)"
cargo test --target wasm32-unknown-unknown -p disagg-explorer --test it
step "release build of the page"
trunk build --release
for f in dist/*.wasm dist/*.js; do
  printf '  %-50s %8d bytes, %8d gzipped\n' "$f" "$(stat -c %s "$f")" "$(gzip -9 -c "$f" | wc -c)"
done
step "end-to-end test of the release page (WebDriver)"
log="$(mktemp)"
if cargo test -p disagg-explorer --test it -- --ignored --nocapture >"$log" 2>&1; then
  grep -E "^latency|^worker|^accessibility|^documents|test result" "$log"
else
  cat "$log"; exit 1
fi
step "validation against published measurements"
cargo run --quiet --release -p disagg-cli -- validate | tail -n 5
