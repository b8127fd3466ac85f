#!/usr/bin/env bash
# Runs every check the project promises: formatting, lints, all tests, and the
# validation report against published measurements. Installs nothing it does not need.
set -euo pipefail
cd "$(dirname "$0")/.."
rustup component list --installed | grep -q '^rustfmt' || rustup component add rustfmt
rustup component list --installed | grep -q '^clippy' || rustup component add clippy
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
cargo test --workspace
cargo run --quiet --release -p disagg-cli -- validate | tail -n 4
