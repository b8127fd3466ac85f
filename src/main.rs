//! Mounts the explorer page (built by Trunk for wasm32). A native build has no page to
//! mount and says where to look instead.

#![forbid(unsafe_code)]
#![deny(unused_must_use)]
#![warn(clippy::dbg_macro, clippy::todo)]

#[cfg(target_arch = "wasm32")]
fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(disagg_explorer::ui::App);
}

#[cfg(not(target_arch = "wasm32"))]
fn main() {
    eprintln!(
        "The explorer is a web page: run scripts/serve.sh (or `trunk serve`). \
         For the engine on the command line, use the `disagg` CLI."
    );
}
