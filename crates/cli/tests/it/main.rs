//! The CLI's integration tests, one binary: the binary as a user runs it, and the
//! snapshots of its output.

mod bundle;
mod cli;
mod cost;
mod deploy;
mod eagle;
mod error_band;
mod explain;
mod flags;
mod framework;
mod fuzz;
mod open_loop;
mod pipeline;
mod pool_flags;
mod precision;
mod recommend;
mod scheduling;
mod snapshots;
mod sweep_flags;
mod validate_by;
mod validate_point;

use std::process::{Command, Output};

/// A prefill/decode split of one H100 for each pool: the smallest `--axis pd` layout.
pub const ONE_H100_EACH_POOL: [&str; 10] = [
    "--axis",
    "pd",
    "--prefill-chip",
    "h100-sxm",
    "--prefill-chips",
    "1",
    "--decode-chip",
    "h100-sxm",
    "--decode-chips",
    "1",
];

pub fn disagg(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_disagg"))
        .args(args)
        .output()
        .unwrap()
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).into_owned()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// The run was refused and its error message names each of `says`; `case` says which run
/// it was where a test tries several. Returns the message for checks of its own.
#[track_caller]
pub fn refused(o: &Output, says: &[&str], case: &str) -> String {
    let err = stderr(o);
    assert!(!o.status.success(), "{case} was accepted: {}", stdout(o));
    for s in says {
        assert!(err.contains(s), "{case}: {s:?} not in: {err}");
    }
    err
}
