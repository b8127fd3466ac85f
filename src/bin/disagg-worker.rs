//! The page's Web Worker (built by Trunk for wasm32 as `disagg-worker`): runs the
//! sweeps the page sends it, so the page never waits on one. A native build has
//! nothing to run.

#![forbid(unsafe_code)]
#![deny(unused_must_use)]

#[cfg(target_arch = "wasm32")]
fn main() {
    console_error_panic_hook::set_once();
    disagg_explorer::worker::serve();
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!("disagg-worker is the explorer page's Web Worker; it runs in a browser.");
}
