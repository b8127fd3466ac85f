//! # disagg-engine
//!
//! The performance model behind Disagg Explorer: a chip and model catalogue with
//! provenance, a model IR read from HuggingFace configs, a per-operator roofline
//! step-cost kernel, a memory and parallelism planner, and the serving metrics of an
//! aggregated deployment.
//!
//! The engine does no I/O and knows nothing of the browser or the terminal: it takes
//! plain data and returns plain data or an [`EngineError`]. The same code runs natively
//! (the `disagg` CLI, tests, benchmarks) and as WebAssembly (the explorer page).
//! Every equation is the one written in `shared/design/model-spec.md`, so a reviewer
//! can check any number with a spreadsheet; `audit/AUDIT.md` explains the choices.

pub mod assumptions;
pub mod catalogue;
pub mod disagg;
pub mod dtype;
pub mod error;
pub mod frontier;
pub mod kernel;
pub mod memory;
pub mod model;
pub mod parallel;
pub mod planner;
pub mod serving;
pub mod sweep;
pub mod units;
pub mod validation;

pub use assumptions::Assumptions;
pub use catalogue::{Catalogue, Chip, ModelPreset};
pub use dtype::{DType, WeightFormat};
pub use error::{EngineError, Result};
pub use model::ModelIr;
pub use parallel::Parallelism;
pub use serving::{predict, Batch, Prediction, Scenario, Workload};
