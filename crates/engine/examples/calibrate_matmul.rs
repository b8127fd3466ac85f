//! Fits `assumptions::MATMUL_REFERENCE`, the measured matmul share of peak at which a
//! chip sustains the global `mfu` unchanged, on the calibration points only, and prints
//! the score of each candidate with both errors.
//!
//! A chip whose catalogue file holds a measured matmul rate runs its matmuls at
//! `mfu * s / MATMUL_REFERENCE` of its peak, `s` the measured share (`audit/MODEL.md`
//! section 1.1). Trying a reference `r` is the same as scaling every measured share by
//! `MATMUL_REFERENCE / r`, which is what this does to a copy of the catalogue.
//!
//! Scored as `calibrate_frameworks` scores a framework's costs: the mean absolute log
//! error over the calibration points other than TTFT, whose error is dominated by
//! queueing that no matmul rate causes (the score over every calibration point, the one
//! `calibrate` uses for the global constants, is printed beside it).
//!
//! The reference moves only when the best candidate lowers the score of the one in use
//! by [`score::MIN_GAIN`], the rule the framework fits follow.
//!
//! Run: `cargo run --release -p disagg-engine --example calibrate_matmul`.

use disagg_engine::assumptions::{Assumptions, MATMUL_REFERENCE};
use disagg_engine::validation::{run, BenchmarkTable, Role};
use disagg_engine::Catalogue;

#[path = "common/score.rs"]
mod score;
use score::{mean_log_error, MIN_GAIN};

fn main() {
    let full = BenchmarkTable::builtin().expect("benchmark table");
    let only = |keep: &dyn Fn(&disagg_engine::validation::BenchmarkPoint) -> bool| BenchmarkTable {
        point: full.point.iter().filter(|p| keep(p)).cloned().collect(),
        unmapped: vec![],
    };
    let calibration = only(&|p| p.role == Role::Calibration);
    let without_ttft =
        only(&|p| p.role == Role::Calibration && !p.metric.is_ttft() && !p.metric.is_median());
    let a = Assumptions::default();
    let mut best = (f64::INFINITY, MATMUL_REFERENCE);
    // The reference in use scales nothing: the catalogue as it stands, on the grid or not.
    let in_use = mean_log_error(Catalogue::builtin(), &without_ttft, &a);
    for step in 0..=20 {
        let reference = 0.60 + 0.01 * step as f64;
        let mut cat = Catalogue::builtin().clone();
        let scale = MATMUL_REFERENCE / reference;
        for chip in &mut cat.chips {
            let e = &mut chip.efficiency;
            e.matmul_bf16 = e.matmul_bf16.map(|s| s * scale);
            e.matmul_fp8 = e.matmul_fp8.map(|s| s * scale);
            e.matmul_fp4 = e.matmul_fp4.map(|s| s * scale);
        }
        let score = mean_log_error(&cat, &without_ttft, &a);
        let report = run(&cat, &full, &a);
        println!(
            "reference {reference:.2}: mean |ln error| without TTFT {score:.4} (with it {:.4}); calibration {}; hold-out {}",
            mean_log_error(&cat, &calibration, &a),
            summary(report.calibration),
            summary(report.holdout),
        );
        if score < best.0 - 1e-12 {
            best = (score, reference);
        }
    }
    let verdict = if best.0 <= in_use * (1.0 - MIN_GAIN) {
        format!("adopt {:.2}", best.1)
    } else {
        format!(
            "keep {MATMUL_REFERENCE:.2}: the best gains less than {:.0}%",
            MIN_GAIN * 100.0
        )
    };
    println!(
        "best reference {:.2} (mean |ln error| {:.4}); in use {MATMUL_REFERENCE:.2} ({in_use:.4}): {verdict}",
        best.1, best.0
    );
}

fn summary(s: Option<disagg_engine::validation::ErrorSummary>) -> String {
    s.map_or("-".into(), |s| {
        format!(
            "{} points, median {:.1}%, p90 {:.1}%",
            s.points,
            s.median_ape * 100.0,
            s.p90_ape * 100.0
        )
    })
}
