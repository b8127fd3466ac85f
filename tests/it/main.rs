//! The page's integration tests, one binary on each of the two targets it runs on:
//! components in a real browser (`web`, wasm32, through wasm-bindgen-test) and the
//! release page end to end over WebDriver (`e2e`, native, ignored unless asked for with
//! `--ignored`; `scripts/test.sh` builds the page first).

#[cfg(not(target_arch = "wasm32"))]
mod e2e;
#[cfg(target_arch = "wasm32")]
mod web;
