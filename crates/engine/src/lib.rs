//! # disagg-engine
//!
//! The performance model behind Disagg Explorer: a chip and model catalogue with
//! provenance, a model IR read from HuggingFace configs, a per-operator roofline
//! step-cost kernel, memory and layout planning, deployments on every axis
//! (aggregated, prefill/decode, attention/expert, speculative), sweeps and their
//! Pareto frontiers, and the validation table.
//!
//! The engine does no I/O and knows nothing of the browser or the terminal: it takes
//! plain data and returns plain data or an [`EngineError`]. The same code runs natively
//! (the `disagg` CLI, tests, benchmarks) and as WebAssembly (the explorer page).
//! Every equation is written out in the repository's `audit/MODEL.md`, so a reviewer
//! can check any number with a spreadsheet; `audit/AUDIT.md` explains the choices.
//!
//! The public boundary the CLI and the page use: [`Catalogue`], [`ModelIr`] (and
//! `model::hf` for a user's config), [`disagg::Setup`], [`disagg::Deployment`],
//! [`disagg::evaluate`], [`disagg::plan::plan`], [`sweep::sweep`], [`validation::run`],
//! [`Assumptions`] and the bounds in [`limits`].

#![forbid(unsafe_code)]
#![deny(unused_must_use)]
#![warn(
    missing_debug_implementations,
    clippy::print_stdout,
    clippy::print_stderr,
    clippy::dbg_macro,
    clippy::todo
)]

pub mod assumptions;
pub mod bundle;
pub mod catalogue;
pub mod cost;
pub mod deploy;
pub mod disagg;
pub mod dtype;
pub mod error;
pub mod explain;
pub mod frontier;
#[cfg(test)]
mod fuzz;
pub mod json_shape;
pub mod kernel;
pub mod limits;
pub mod memory;
pub mod model;
pub mod parallel;
pub mod recommend;
pub mod serving;
pub mod sweep;
pub mod units;
pub mod validation;
pub mod workload;

pub use assumptions::Assumptions;
pub use catalogue::{Catalogue, Chip, ModelPreset};
pub use dtype::{DType, Precision, WeightFormat};
pub use error::{EngineError, Result};
pub use model::ModelIr;
pub use parallel::Parallelism;
pub use workload::{FiniteRun, Workload};
