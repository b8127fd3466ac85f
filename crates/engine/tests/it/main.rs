//! The engine's integration tests, one binary: each module holds one subject.

mod aggregated;
mod all_to_all;
mod answers;
mod benchmark_definitions;
mod catalogue;
mod common;
mod deploy;
mod deploy_flags;
mod disagg;
mod eager;
mod eagle;
mod explain;
mod headline;
mod host_overlap;
mod kernel;
mod kernel_factors;
mod little;
mod pipeline;
mod precision;
mod prefill_ep;
mod recommend;
mod routed_pick;
mod sram;
mod sweeps;
mod topology;
mod validation;
