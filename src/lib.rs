//! Disagg Explorer's page. The Leptos client-side app arrives with the explorer issue;
//! until then this crate re-exports the engine so the workspace layout is final.

pub use disagg_engine as engine;
