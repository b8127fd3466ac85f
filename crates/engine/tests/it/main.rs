//! The engine's integration tests, one binary: each module holds one subject.

mod disagg;
mod engine;
mod headline;
