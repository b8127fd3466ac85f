//! Fits the modelling constants to the calibration points of the validation table
//! (never the hold-out points) and prints the fit with both errors.
//!
//! Two stages, both scored by the mean absolute log error `|ln(predicted / measured)|`
//! over calibration points (symmetric: 2x too fast costs as much as 2x too slow, and
//! unlike the median it moves when any point moves):
//! 1. the global constants, by grid search, with every fitted per-chip override removed
//!    (measured matmul shares are kept: they are catalogue numbers, not fits);
//! 2. a per-chip efficiency for each chip whose own calibration points are still off by
//!    more than 25% on average: one factor on its MFU (every dtype) and its bandwidth
//!    efficiency, printed as the catalogue entry to write.
//!
//! Run: `cargo run --release -p disagg-engine --example calibrate`.

use disagg_engine::assumptions::{Assumptions, ChipRates};
use disagg_engine::catalogue::ChipEfficiency;
use disagg_engine::units::Seconds;
use disagg_engine::validation::{run, BenchmarkTable, Role};
use disagg_engine::Catalogue;

#[path = "common/score.rs"]
mod score;

/// A chip's calibration points must be off by more than this factor on average before
/// it gets its own efficiency.
const PER_CHIP_THRESHOLD: f64 = 1.25;

fn main() {
    let full = BenchmarkTable::builtin().expect("benchmark table");
    let calibration = BenchmarkTable {
        point: full
            .point
            .iter()
            .filter(|p| p.role == Role::Calibration)
            .cloned()
            .collect(),
        unmapped: vec![],
    };
    let mut defaults_only = Catalogue::builtin().clone();
    for chip in &mut defaults_only.chips {
        // Fitted overrides go; a measured matmul share is a catalogue number and stays.
        let e = chip.efficiency;
        chip.efficiency = ChipEfficiency {
            matmul_bf16: e.matmul_bf16,
            matmul_fp8: e.matmul_fp8,
            matmul_fp4: e.matmul_fp4,
            ..ChipEfficiency::default()
        };
    }

    let mut best: Option<(f64, Assumptions)> = None;
    for mfu in [0.5, 0.6, 0.7] {
        for bw_eff in [0.65, 0.75, 0.85] {
            for kernel_us in [2.0, 4.0, 6.0, 8.0] {
                for step_us in [200.0, 1000.0] {
                    for cap in [256.0, 1024.0, 4096.0] {
                        for seq_us in [0.0, 5.0, 10.0, 20.0, 30.0, 40.0] {
                            let a = Assumptions {
                                mfu,
                                bw_eff,
                                kernel_overhead: Seconds::from_us(kernel_us),
                                step_overhead: Seconds::from_us(step_us),
                                max_seqs_per_replica: cap,
                                seq_overhead: Seconds::from_us(seq_us),
                                ..Assumptions::default()
                            };
                            let score = mean_log_error(&defaults_only, &calibration, &a, |_| true);
                            if best.as_ref().is_none_or(|(s, _)| score < *s) {
                                best = Some((score, a));
                            }
                        }
                    }
                }
            }
        }
    }
    let (score, a) = best.expect("a setting");
    println!(
        "global: mfu {} bw_eff {} kernel {:.0} us step {:.0} us per-sequence {:.0} us cap {} (mean |ln error| {score:.3})",
        a.mfu,
        a.bw_eff,
        a.kernel_overhead.us(),
        a.step_overhead.us(),
        a.seq_overhead.us(),
        a.max_seqs_per_replica,
    );

    let mut chips: Vec<&str> = calibration.point.iter().map(|p| p.chip.as_str()).collect();
    chips.sort_unstable();
    chips.dedup();
    let mut fitted = defaults_only.clone();
    for id in chips {
        let on_chip = |p: &disagg_engine::validation::BenchmarkPoint| p.chip == id;
        let before = mean_log_error(&defaults_only, &calibration, &a, on_chip);
        if before <= PER_CHIP_THRESHOLD.ln() {
            println!("{id}: mean |ln error| {before:.3}, defaults kept");
            continue;
        }
        let mut best_scale = (before, 1.0);
        for step in 0..=60 {
            let scale = 0.3 + 0.02 * step as f64;
            let mut trial = defaults_only.clone();
            set_scale(&mut trial, id, &a, scale);
            let score = mean_log_error(&trial, &calibration, &a, on_chip);
            if score < best_scale.0 {
                best_scale = (score, scale);
            }
        }
        let (after, scale) = best_scale;
        set_scale(&mut fitted, id, &a, scale);
        let bf16 = fitted
            .chips
            .iter()
            .find(|c| c.id == id)
            .map_or(0.0, |c| ChipRates::for_chip(c, &a).mfu_bf16);
        println!(
            "{id}: mean |ln error| {before:.3} -> {after:.3} with efficiency x{scale:.2}: \
             mfu (BF16) = {bf16:.2}, bw_eff = {:.2}",
            (a.bw_eff * scale).min(1.0)
        );
    }

    let report = run(&fitted, &full, &a);
    println!("calibration: {:?}", report.calibration);
    println!("holdout:     {:?}", report.holdout);
}

fn set_scale(catalogue: &mut Catalogue, id: &str, a: &Assumptions, scale: f64) {
    if let Some(chip) = catalogue.chips.iter_mut().find(|c| c.id == id) {
        // One factor on every dtype's efficiency as it stands, a measured matmul share
        // included, so that FP8 and FP4 matmuls move with BF16 ones.
        let r = ChipRates::for_chip(chip, a);
        let e = &mut chip.efficiency;
        e.mfu = Some((r.mfu_bf16 * scale).min(1.0));
        e.mfu_fp8 = Some((r.mfu_fp8 * scale).min(1.0));
        e.mfu_fp4 = Some((r.mfu_fp4 * scale).min(1.0));
        e.bw_eff = Some((a.bw_eff * scale).min(1.0));
    }
}

fn mean_log_error(
    catalogue: &Catalogue,
    table: &BenchmarkTable,
    a: &Assumptions,
    keep: impl Fn(&disagg_engine::validation::BenchmarkPoint) -> bool,
) -> f64 {
    let subset = BenchmarkTable {
        point: table.point.iter().filter(|p| keep(p)).cloned().collect(),
        unmapped: vec![],
    };
    score::mean_log_error(catalogue, &subset, a)
}
