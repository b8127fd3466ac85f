//! Disagg Explorer's page. The Leptos client-side app arrives with the explorer issue;
//! the plain logic it will drive (the scenario and its shareable link) lives here first,
//! tested natively.

pub use disagg_engine as engine;

pub mod scenario;
