#!/usr/bin/env bash
# Installs what building, serving and testing the explorer needs on a fresh machine.
# Every step checks first and skips what is already present, so running it twice is cheap.
set -euo pipefail
source "$(dirname "$0")/env.sh"

log() { printf '[setup] %s\n' "$*"; }

as_root() {
  if [ "$(id -u)" = 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else "$@"; fi
}

if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "adding the wasm32-unknown-unknown target"
  rustup target add wasm32-unknown-unknown
fi
for component in rustfmt clippy; do
  rustup component list --installed | grep -q "^$component" || rustup component add "$component"
done

if ! { command -v wasm-bindgen >/dev/null && wasm-bindgen --version | grep -q " $WASM_BINDGEN_VERSION"; }; then
  log "installing wasm-bindgen-cli $WASM_BINDGEN_VERSION (about 3 minutes)"
  cargo install wasm-bindgen-cli --version "$WASM_BINDGEN_VERSION"
fi

if ! { command -v trunk >/dev/null && trunk --version | grep -q " $TRUNK_VERSION"; }; then
  log "installing trunk $TRUNK_VERSION (about 8 minutes)"
  cargo install trunk --version "$TRUNK_VERSION" --locked
fi

missing=()
command -v chromium >/dev/null || missing+=(chromium)
command -v chromedriver >/dev/null || missing+=(chromium-driver)
command -v npm >/dev/null || missing+=(nodejs npm)
if [ ${#missing[@]} -gt 0 ]; then
  log "installing Debian packages: ${missing[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
fi
export CHROMEDRIVER="$(command -v chromedriver)"

# Both npm packages in one install: a second `npm install --no-save` into the same
# prefix would drop the first as extraneous.
axe_installed() {
  grep -qs "\"version\": \"$AXE_CORE_VERSION\"" "$TOOLS_DIR/node_modules/axe-core/package.json"
}
if ! { [ -x "$TOOLS_DIR/node_modules/.bin/wasm-opt" ] \
       && "$TOOLS_DIR/node_modules/.bin/wasm-opt" --version | grep -q "version_${BINARYEN_VERSION%%.*}" \
       && axe_installed; }; then
  log "installing binaryen $BINARYEN_VERSION (wasm-opt) and axe-core $AXE_CORE_VERSION from npm into .tools"
  mkdir -p "$TOOLS_DIR"
  npm install --silent --no-save --no-audit --no-fund --prefix "$TOOLS_DIR" \
    "binaryen@$BINARYEN_VERSION" "axe-core@$AXE_CORE_VERSION"
fi

log "toolchain ready: $(wasm-bindgen --version), $(trunk --version), $(wasm-opt --version | head -1), $(chromedriver --version | head -1)"
