//! Fits each serving framework's host costs (per engine step, per sequence per step,
//! and per kernel) to that framework's own calibration points, never a hold-out point, and
//! prints the fit beside the global assumptions' score.
//!
//! Scored by the mean absolute log error over the framework's calibration points other
//! than TTFT (whose error is dominated by queueing the host costs do not cause). A
//! framework needs at least [`MIN_POINTS`] such points to be fitted, and a fit is
//! adopted (written into `serving.rs`) only when it lowers that score by [`MIN_GAIN`].
//!
//! Run: `cargo run --release -p disagg-engine --example calibrate_frameworks`.

use disagg_engine::assumptions::Assumptions;
use disagg_engine::serving::{Framework, FrameworkChoice};
use disagg_engine::validation::{BenchmarkPoint, BenchmarkTable, Metric, Role};
use disagg_engine::Catalogue;

#[path = "common/score.rs"]
mod score;
use score::mean_log_error;

/// Fewest calibration points a framework's fit stands on.
const MIN_POINTS: usize = 4;

/// A fit is adopted only when it lowers the framework's calibration score by at least
/// this share: two constants more must buy a clear gain, not noise.
const MIN_GAIN: f64 = 0.10;

const STEP_US: [f64; 8] = [25.0, 50.0, 100.0, 200.0, 400.0, 800.0, 1600.0, 3200.0];
const SEQ_US: [f64; 8] = [0.0, 2.5, 5.0, 10.0, 20.0, 40.0, 80.0, 160.0];
/// Per-kernel costs tried: from a CUDA-graph launch's few microseconds to twice the
/// global 6 us.
const KERNEL_US: [f64; 7] = [1.0, 2.0, 3.0, 4.0, 6.0, 8.0, 12.0];

fn main() {
    let cat = Catalogue::builtin();
    let full = BenchmarkTable::builtin().expect("benchmark table");
    let base = Assumptions::default();
    for framework in Framework::ALL {
        let points: Vec<BenchmarkPoint> = full
            .point
            .iter()
            .filter(|p| p.role == Role::Calibration)
            .filter(|p| p.framework.serving() == FrameworkChoice::Given(framework))
            .filter(|p| !matches!(p.metric, Metric::TtftMs))
            .cloned()
            .collect();
        let ids: Vec<&str> = points.iter().map(|p| p.id.as_str()).collect();
        if points.len() < MIN_POINTS {
            println!(
                "{}: {} calibration points ({}), not fitted",
                framework.id(),
                points.len(),
                ids.join(" ")
            );
            continue;
        }
        let table = BenchmarkTable {
            point: points.clone(),
            unmapped: vec![],
        };
        let score = |step: f64, seq: f64, kernel: f64| {
            let a = base
                .pin("step_overhead", step * 1e-6)
                .pin("seq_overhead", seq * 1e-6)
                .pin("kernel_overhead", kernel * 1e-6);
            mean_log_error(cat, &table, &a)
        };
        let now = mean_log_error(cat, &table, &base);
        let mut best = (
            now,
            base.step_overhead.us(),
            base.seq_overhead.us(),
            base.kernel_overhead.us(),
        );
        for step in STEP_US {
            for seq in SEQ_US {
                for kernel in KERNEL_US {
                    let s = score(step, seq, kernel);
                    if s < best.0 - 1e-12 {
                        best = (s, step, seq, kernel);
                    }
                }
            }
        }
        let verdict = if best.0 <= now * (1.0 - MIN_GAIN) {
            "adopt"
        } else {
            "keep the global host costs"
        };
        println!(
            "{}: {} points ({}): mean |ln error| {now:.3} with the global host costs -> {:.3} with step {:.0} us, per sequence {:.1} us, per kernel {:.1} us: {verdict}",
            framework.id(),
            points.len(),
            ids.join(" "),
            best.0,
            best.1,
            best.2,
            best.3
        );
    }
}
