//! Fits the global efficiency constants to the calibration points of the validation
//! table (never the hold-out points) by a grid search that minimises the median
//! absolute percentage error, and prints the best settings with both errors.
//! Run: `cargo run --release -p disagg-engine --example calibrate`.

use disagg_engine::assumptions::Assumptions;
use disagg_engine::units::Seconds;
use disagg_engine::validation::{run, BenchmarkTable};
use disagg_engine::Catalogue;

fn main() {
    let catalogue = Catalogue::builtin();
    let full = BenchmarkTable::builtin().expect("benchmark table");
    let calibration = BenchmarkTable {
        point: full
            .point
            .iter()
            .filter(|p| p.role == disagg_engine::validation::Role::Calibration)
            .cloned()
            .collect(),
        unmapped: vec![],
    };
    let mut best: Option<(f64, Assumptions)> = None;
    for mfu in [0.35, 0.4, 0.45, 0.5, 0.55, 0.6] {
        for bw_eff in [0.6, 0.65, 0.7, 0.75, 0.8, 0.85] {
            for kernel_us in [2.0, 4.0, 6.0, 8.0] {
                for step_us in [200.0, 500.0, 1000.0] {
                    for cap in [256.0, 512.0, 1024.0] {
                        let a = Assumptions {
                            mfu,
                            bw_eff,
                            kernel_overhead: Seconds::from_us(kernel_us),
                            step_overhead: Seconds::from_us(step_us),
                            max_seqs_per_replica: cap,
                            ..Assumptions::default()
                        };
                        let report = run(catalogue, &calibration, &a);
                        let median = report.calibration.map_or(f64::INFINITY, |s| s.median_ape);
                        if best.as_ref().is_none_or(|(m, _)| median < *m) {
                            best = Some((median, a));
                        }
                    }
                }
            }
        }
    }
    let (_, a) = best.expect("a setting");
    let report = run(catalogue, &full, &a);
    println!(
        "best: mfu {} bw_eff {} kernel {:.0} us step {:.0} us cap {}",
        a.mfu,
        a.bw_eff,
        a.kernel_overhead.us(),
        a.step_overhead.us(),
        a.max_seqs_per_replica
    );
    println!("calibration: {:?}", report.calibration);
    println!("holdout:     {:?}", report.holdout);
}
