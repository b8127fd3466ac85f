//! Tests measured memory bandwidth by chip as a scale on the global `bw_eff`, the
//! bandwidth counterpart of `calibrate_matmul`, on the calibration points only, and
//! prints what it found. Not adopted: the engine does not scale `bw_eff` by a measured
//! bandwidth (audit/AUDIT.md, "Measured memory bandwidth by chip: looked at, not
//! adopted").
//!
//! The rule tried: a chip measured at `B` of its nominal bandwidth `P` streams at
//! `bw_eff * (B / P) / r`, at most 1, `r` the reference share at which a chip keeps the
//! global `bw_eff`; a chip without a measurement keeps `bw_eff`, and a chip with a
//! fitted `bw_eff` (MI300X) keeps it. The example writes that value as the chip's own
//! `bw_eff` in a copy of the catalogue, so the engine's one path (`ChipRates::for_chip`)
//! evaluates it.
//!
//! Two sources, each one method across many chips (both third-party, so `estimate`):
//! - FluidX3D's single-GPU table (github.com/ProjectPhysX/FluidX3D, README.md at commit
//!   8986874e, "Single-GPU/CPU Benchmark Table", column FP32/FP32): a lattice Boltzmann
//!   kernel in OpenCL that moves 153 bytes per cell and time step (same README), so
//!   `MLUPs/s x 153 B` is the memory traffic it sustained.
//! - device-benchmarks (github.com/chsasank/device-benchmarks, README.md at commit
//!   7ccc8838, column "Memory Bandwidth (GB/s)"): PyTorch `copy_` of up to 0.38 GB,
//!   read and write bytes counted.
//!
//! Scored as `calibrate_matmul` scores its reference: the mean absolute log error over
//! the calibration points other than TTFT (over every calibration point beside it).
//! The hold-out summaries are printed for the record; nothing is chosen on them.
//!
//! Run: `cargo run --release -p disagg-engine --example calibrate_bandwidth`.

use disagg_engine::assumptions::Assumptions;
use disagg_engine::validation::{run, BenchmarkPoint, BenchmarkTable, ErrorSummary, Role};
use disagg_engine::Catalogue;

#[path = "common/score.rs"]
mod score;
use score::mean_log_error;

/// Bytes one FluidX3D D3Q19 cell moves per time step in FP32/FP32 (its README).
const FLUIDX3D_BYTES_PER_CELL: f64 = 153.0;

/// FluidX3D FP32/FP32 MLUPs/s by catalogue chip. Left out: GH200 (the table's row is the
/// 94 GB HBM3 part, the catalogue's the 144 GB HBM3e one). M1 Max (24-core row), M3
/// Ultra (60-core row) and RTX PRO 6000 (the workstation card) share the catalogue
/// part's memory system.
const FLUIDX3D_MLUPS: [(&str, f64); 15] = [
    ("b300", 42519.0),
    ("b200", 42152.0),
    ("h200", 23056.0),
    ("h100-sxm", 17602.0),
    ("h100-pcie", 11128.0),
    ("a100-80g", 10228.0),
    ("mi355x", 30380.0),
    ("rtx-pro-6000", 10349.0),
    ("rtx-5090", 9522.0),
    ("rtx-4090", 5624.0),
    ("l40s", 3788.0),
    ("dgx-spark", 1288.0),
    ("m3-ultra", 4438.0),
    ("m2-ultra", 4629.0),
    ("m1-max", 2369.0),
];

/// device-benchmarks' GPU copy bandwidth, GB/s, for the catalogue chips it names (its
/// "Nvidia A100 80GB" row does not say SXM or PCIe and is left out).
const TORCH_COPY_GBS: [(&str, f64); 5] = [
    ("h100-pcie", 1630.0),
    ("rtx-4090", 912.0),
    ("m2-ultra", 636.0),
    ("m3-max", 318.0),
    ("m4-max", 396.0),
];

/// The chips with calibration points, for the last table.
const CALIBRATED_CHIPS: [&str; 10] = [
    "b200",
    "gb200",
    "gb300",
    "h100-sxm",
    "h200",
    "m2-ultra",
    "m4-max",
    "mi355x",
    "rtx-4090",
    "rtx-pro-6000",
];

fn main() {
    let full = BenchmarkTable::builtin().expect("benchmark table");
    let only = |keep: &dyn Fn(&BenchmarkPoint) -> bool| BenchmarkTable {
        point: full.point.iter().filter(|p| keep(p)).cloned().collect(),
        unmapped: vec![],
    };
    let calibration = only(&|p| p.role == Role::Calibration);
    let without_ttft =
        only(&|p| p.role == Role::Calibration && !p.metric.is_ttft() && !p.metric.is_median());
    let builtin = Catalogue::builtin();
    let a = Assumptions::default();
    println!(
        "no measured bandwidth: mean |ln error| without TTFT {:.4} (with it {:.4}); {}",
        mean_log_error(builtin, &without_ttft, &a),
        mean_log_error(builtin, &calibration, &a),
        summaries(builtin, &full, &a),
    );

    let fluidx3d: Vec<(&str, f64)> = FLUIDX3D_MLUPS
        .iter()
        .map(|&(id, mlups)| (id, mlups * FLUIDX3D_BYTES_PER_CELL / 1e3))
        .collect();
    let sources: [(&str, Vec<(&str, f64)>); 2] = [
        ("FluidX3D FP32/FP32", fluidx3d),
        ("device-benchmarks copy", TORCH_COPY_GBS.to_vec()),
    ];
    for (name, measured) in &sources {
        println!("\n{name}: measured share of nominal bandwidth");
        let shares: Vec<(&str, f64)> = measured
            .iter()
            .filter_map(|&(id, gbs)| {
                let chip = builtin.chip(id).ok()?;
                Some((id, gbs / chip.fast.bandwidth.gb_per_s()))
            })
            .collect();
        for (id, s) in &shares {
            println!("  {id:13} {s:.3}");
        }
        let mut best = (f64::INFINITY, 0.0, a.bw_eff);
        for bw_eff in [0.70, 0.75, 0.80, 0.85] {
            let a = Assumptions {
                bw_eff,
                ..Assumptions::default()
            };
            for step in 0..=20 {
                let reference = 0.70 + 0.01 * step as f64;
                let cat = scaled(builtin, &shares, &a, reference);
                let score = mean_log_error(&cat, &without_ttft, &a);
                if bw_eff == Assumptions::default().bw_eff {
                    println!(
                        "  reference {reference:.2}: {score:.4} (with TTFT {:.4}); {}",
                        mean_log_error(&cat, &calibration, &a),
                        summaries(&cat, &full, &a),
                    );
                }
                if score < best.0 - 1e-12 {
                    best = (score, reference, bw_eff);
                }
            }
        }
        let (score, reference, bw_eff) = best;
        println!(
            "  best over global bw_eff 0.70..0.85 and reference 0.70..0.90: bw_eff {bw_eff:.2}, reference {reference:.2}, {score:.5}"
        );
        let a = Assumptions {
            bw_eff,
            ..Assumptions::default()
        };
        println!("  each measurement alone at that reference:");
        for one in &shares {
            let cat = scaled(builtin, std::slice::from_ref(one), &a, reference);
            println!(
                "    {:13} {:.4} (with TTFT {:.4})",
                one.0,
                mean_log_error(&cat, &without_ttft, &a),
                mean_log_error(&cat, &calibration, &a),
            );
        }
    }

    // What each chip's own calibration points would take as a factor on bw_eff: a
    // diagnostic of the pattern a measurement would have to follow, not a fit to adopt.
    println!("\neach calibration chip's own best factor on bw_eff (its points other than TTFT):");
    for id in CALIBRATED_CHIPS {
        let mine = only(&|p| {
            p.role == Role::Calibration
                && !p.metric.is_ttft()
                && !p.metric.is_median()
                && p.chip == id
        });
        let mut best = (f64::INFINITY, 1.0);
        let mut line = format!("  {id:13} {:2} points:", mine.point.len());
        for step in 0..=12 {
            let factor = 0.70 + 0.05 * step as f64;
            let mut cat = builtin.clone();
            for chip in cat.chips.iter_mut().filter(|c| c.id == id) {
                chip.efficiency.bw_eff = Some((a.bw_eff * factor).min(1.0));
            }
            let score = mean_log_error(&cat, &mine, &a);
            if step % 2 == 0 {
                line += &format!(" x{factor:.1} {score:.3}");
            }
            if score < best.0 - 1e-12 {
                best = (score, factor);
            }
        }
        println!("{line}; best x{:.2} ({:.3})", best.1, best.0);
    }
}

/// A copy of the catalogue in which each measured chip without a fitted `bw_eff` streams
/// at `bw_eff * share / reference`.
fn scaled(
    builtin: &Catalogue,
    shares: &[(&str, f64)],
    a: &Assumptions,
    reference: f64,
) -> Catalogue {
    let mut cat = builtin.clone();
    for chip in &mut cat.chips {
        if chip.efficiency.bw_eff.is_some() {
            continue;
        }
        if let Some((_, s)) = shares.iter().find(|(id, _)| *id == chip.id) {
            chip.efficiency.bw_eff = Some((a.bw_eff * s / reference).min(1.0));
        }
    }
    cat
}

fn summaries(cat: &Catalogue, full: &BenchmarkTable, a: &Assumptions) -> String {
    let report = run(cat, full, a);
    format!(
        "calibration {}, hold-out {}",
        summary(report.calibration),
        summary(report.holdout)
    )
}

fn summary(s: Option<ErrorSummary>) -> String {
    s.map_or("-".into(), |s| {
        format!("{:.1}% / {:.1}%", s.median_ape * 100.0, s.p90_ape * 100.0)
    })
}
