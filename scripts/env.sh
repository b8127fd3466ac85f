# Sourced by the other scripts: the project's tool versions and PATH.
WASM_BINDGEN_VERSION=0.2.130   # must equal the wasm-bindgen crate pinned in Cargo.toml
TRUNK_VERSION=0.21.14          # 0.22 needs a newer rustc than 1.95
BINARYEN_VERSION=132.0.0       # wasm-opt; Trunk.toml names it as version_132
AXE_CORE_VERSION=4.14.1        # the accessibility audit the end-to-end test runs
PROJECT_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
TOOLS_DIR="$PROJECT_ROOT/.tools"
export PATH="$TOOLS_DIR/node_modules/.bin:$HOME/.cargo/bin:$PATH"
export AXE_CORE_JS="$TOOLS_DIR/node_modules/axe-core/axe.min.js"
export CHROMEDRIVER="${CHROMEDRIVER:-$(command -v chromedriver || echo /usr/bin/chromedriver)}"
