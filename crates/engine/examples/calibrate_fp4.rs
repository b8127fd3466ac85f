//! Fits the FP4 matmul efficiency of NVIDIA's data-centre Blackwell die (B200 and
//! GB200, one silicon) on calibration points only, jointly with TensorRT-LLM's host
//! costs, and prints the fit beside the current score.
//!
//! Why jointly: on the calibration points a large-batch decode step (MLPerf's
//! Llama-2-70B offline, 1,555 sequences per B200) is set by FP4 matmuls *and* host work
//! per sequence, while a prompt-heavy or small-batch step is set by the matmuls alone,
//! so one of the two constants cannot be fitted with the other held at a value that was
//! itself fitted with FP4 at the 16-bit efficiency.
//!
//! Scored, as `calibrate_frameworks` is, by the mean absolute log error over the
//! calibration points other than TTFT (whose error is queueing, which neither constant
//! causes): every Blackwell point that runs FP4 matmuls, and every TensorRT-LLM point
//! (whose host costs move). A fit is adopted only when it lowers that score by
//! [`MIN_GAIN`].
//!
//! Run: `cargo run --release -p disagg-engine --example calibrate_fp4`.

use disagg_engine::assumptions::Assumptions;
use disagg_engine::dtype::{ComputeRate, DType};
use disagg_engine::serving::{Framework, FrameworkChoice};
use disagg_engine::validation::{BenchmarkPoint, BenchmarkTable, Role};
use disagg_engine::Catalogue;

#[path = "common/score.rs"]
mod score;
use score::mean_log_error;

/// The chips of one die whose FP4 efficiency is fitted.
const BLACKWELL: [&str; 2] = ["b200", "gb200"];

/// A fit is adopted only when it lowers the score by at least this share.
const MIN_GAIN: f64 = 0.10;

const MFU_FP4: [f64; 7] = [0.30, 0.35, 0.40, 0.45, 0.50, 0.55, 0.60];
const STEP_US: [f64; 4] = [100.0, 200.0, 400.0, 800.0];
const SEQ_US: [f64; 6] = [0.0, 5.0, 10.0, 15.0, 20.0, 40.0];

fn main() {
    let full = BenchmarkTable::builtin().expect("benchmark table");
    let is_fp4 = |p: &BenchmarkPoint| {
        let fp4 = |d: DType| d.compute_rate() == ComputeRate::Fp4;
        fp4(p.weight_dtype) || p.expert_dtype.is_some_and(fp4)
    };
    let trtllm =
        |p: &BenchmarkPoint| p.framework.serving() == FrameworkChoice::Given(Framework::TrtLlm);
    let points: Vec<&BenchmarkPoint> = full
        .point
        .iter()
        .filter(|p| p.role == Role::Calibration && !p.metric.is_ttft() && !p.metric.is_median())
        .filter(|p| trtllm(p) || (BLACKWELL.contains(&p.chip.as_str()) && is_fp4(p)))
        .collect();
    let table = |keep: &dyn Fn(&BenchmarkPoint) -> bool| BenchmarkTable {
        point: points
            .iter()
            .filter(|p| keep(p))
            .map(|p| (*p).clone())
            .collect(),
        unmapped: vec![],
    };
    let own = table(&|p| trtllm(p));
    let others = table(&|p| !trtllm(p));
    println!(
        "{} points: {}",
        points.len(),
        points
            .iter()
            .map(|p| p.id.as_str())
            .collect::<Vec<_>>()
            .join(" ")
    );
    let base = Assumptions::default();
    let score = |mfu_fp4: Option<f64>, host: Option<(f64, f64)>| {
        let mut cat = Catalogue::builtin().clone();
        for chip in cat
            .chips
            .iter_mut()
            .filter(|c| BLACKWELL.contains(&c.id.as_str()))
        {
            chip.efficiency.mfu_fp4 = mfu_fp4;
        }
        let pinned = match host {
            Some((step, seq)) => base
                .pin("step_overhead", step * 1e-6)
                .pin("seq_overhead", seq * 1e-6),
            None => base,
        };
        // The mean over both sets of points: each set's mean weighted by its size.
        let (n_own, n_others) = (own.point.len() as f64, others.point.len() as f64);
        (mean_log_error(&cat, &own, &pinned) * n_own
            + mean_log_error(&cat, &others, &base) * n_others)
            / (n_own + n_others)
    };
    let now = score(None, None);
    let mut best = (now, None, None);
    for mfu in MFU_FP4 {
        // The best host costs for this efficiency, so each line reads on its own.
        let mut at = (f64::INFINITY, (0.0, 0.0));
        for step in STEP_US {
            for seq in SEQ_US {
                let s = score(Some(mfu), Some((step, seq)));
                if s < at.0 - 1e-12 {
                    at = (s, (step, seq));
                }
            }
        }
        println!(
            "mfu_fp4 {mfu:.2}: mean |ln error| {:.4} at TensorRT-LLM step {:.0} us, per sequence {:.1} us",
            at.0, at.1 .0, at.1 .1
        );
        if at.0 < best.0 - 1e-12 {
            best = (at.0, Some(mfu), Some(at.1));
        }
    }
    let verdict = if best.0 <= now * (1.0 - MIN_GAIN) {
        "adopt"
    } else {
        "keep"
    };
    println!(
        "mean |ln error| {now:.4} now -> {:.4} with mfu_fp4 {:?} and TensorRT-LLM host (step us, per-sequence us) {:?}: {verdict}",
        best.0, best.1, best.2
    );
}
