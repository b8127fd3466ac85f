//! Fits how an operator's compute and memory bounds combine into its time, on measured
//! kernels, never on the validation table: the FP8 GEMMs DeepGEMM publishes for H800
//! (github.com/deepseek-ai/DeepGEMM, README.md at commit 55ab91f, 2025-03-25, "Performance":
//! 18 dense shapes of 64, 128 and 4,096 rows and 6 masked grouped shapes of 256 to 1,024
//! rows per group, each with the TFLOPS it reached).
//!
//! Each shape's bounds are its FLOPs `2 M N K` (times the groups) at a compute rate and its
//! bytes (FP8 operands `M K + N K`, BF16 output `2 M N`, times the groups; the README's
//! GB/s column is these bytes over the measured time) at a bandwidth. The combination
//! tried is `(c^p + m^p)^(1/p)`, the roofline's maximum at `p = infinity`; the engine uses
//! `p = 2` (`kernel::operator_time`). Scored by the mean absolute log error of the
//! predicted time against the measured, at the rates the engine gives H800 (FP8 at 0.60 of
//! 1,979 TFLOPS, 3,350 GB/s at `bw_eff` 0.75) and with both rates free, and with the fixed
//! cost a kernel pays besides its bounds at 0 and 2 us.
//!
//! Run: `cargo run --release -p disagg-engine --example fit_roofline`.

use disagg_engine::kernel::operator_time;
use disagg_engine::units::Seconds;

/// (groups, rows per group M, N, K, measured TFLOPS).
const SHAPES: [(f64, f64, f64, f64, f64); 24] = [
    (1.0, 64.0, 2112.0, 7168.0, 206.0),
    (1.0, 64.0, 24576.0, 1536.0, 289.0),
    (1.0, 64.0, 32768.0, 512.0, 219.0),
    (1.0, 64.0, 7168.0, 16384.0, 336.0),
    (1.0, 64.0, 4096.0, 7168.0, 287.0),
    (1.0, 64.0, 7168.0, 2048.0, 295.0),
    (1.0, 128.0, 2112.0, 7168.0, 352.0),
    (1.0, 128.0, 24576.0, 1536.0, 535.0),
    (1.0, 128.0, 32768.0, 512.0, 358.0),
    (1.0, 128.0, 7168.0, 16384.0, 645.0),
    (1.0, 128.0, 4096.0, 7168.0, 533.0),
    (1.0, 128.0, 7168.0, 2048.0, 510.0),
    (1.0, 4096.0, 2112.0, 7168.0, 1009.0),
    (1.0, 4096.0, 24576.0, 1536.0, 1125.0),
    (1.0, 4096.0, 32768.0, 512.0, 751.0),
    (1.0, 4096.0, 7168.0, 16384.0, 1426.0),
    (1.0, 4096.0, 4096.0, 7168.0, 1265.0),
    (1.0, 4096.0, 7168.0, 2048.0, 1168.0),
    (1.0, 1024.0, 4096.0, 7168.0, 1233.0),
    (1.0, 1024.0, 7168.0, 2048.0, 925.0),
    (2.0, 512.0, 4096.0, 7168.0, 1040.0),
    (2.0, 512.0, 7168.0, 2048.0, 916.0),
    (4.0, 256.0, 4096.0, 7168.0, 932.0),
    (4.0, 256.0, 7168.0, 2048.0, 815.0),
];

/// The engine's H800 rates: FP8 at the global `mfu` 0.60 (H800 has no measured matmul
/// share in the catalogue) of its 1,978.9 TFLOPS, and 3,350 GB/s at `bw_eff` 0.75.
const ENGINE_FLOPS: f64 = 0.60 * 1978.9e12;
const ENGINE_BYTES_PER_S: f64 = 0.75 * 3350e9;

/// Exponents tried; `f64::INFINITY` is the roofline's maximum.
const EXPONENTS: [f64; 7] = [1.5, 2.0, 2.5, 3.0, 4.0, 6.0, f64::INFINITY];

fn combine(c: f64, m: f64, p: f64) -> f64 {
    let hi = c.max(m);
    if p.is_infinite() || hi == 0.0 {
        return hi;
    }
    hi * ((c / hi).powf(p) + (m / hi).powf(p)).powf(1.0 / p)
}

/// Mean |ln(predicted / measured)| over the shapes.
fn score(p: f64, flops_per_s: f64, bytes_per_s: f64, fixed: f64) -> f64 {
    let total: f64 = SHAPES
        .iter()
        .map(|&(g, m, n, k, tflops)| {
            let flops = 2.0 * m * n * k * g;
            let bytes = (m * k + n * k + 2.0 * m * n) * g;
            let measured = flops / (tflops * 1e12);
            let predicted = combine(flops / flops_per_s, bytes / bytes_per_s, p) + fixed;
            (predicted / measured).ln().abs()
        })
        .sum();
    total / SHAPES.len() as f64
}

fn main() {
    // The engine's combination is this family's p = 2.
    let (c, m) = (3.0e-5, 4.0e-5);
    assert!(
        (operator_time(Seconds::new(c), Seconds::new(m)).value() - combine(c, m, 2.0)).abs()
            < 1e-15
    );

    for fixed_us in [0.0, 2.0] {
        let fixed = fixed_us * 1e-6;
        println!("fixed cost per kernel {fixed_us} us:");
        for p in EXPONENTS {
            let at_engine = score(p, ENGINE_FLOPS, ENGINE_BYTES_PER_S, fixed);
            // Both rates free: compute 900-1,900 TFLOPS, bandwidth 1.50-3.35 TB/s.
            let mut best = (f64::INFINITY, 0.0, 0.0);
            for f in 0..=40 {
                let flops = (900.0 + 25.0 * f as f64) * 1e12;
                for b in 0..=37 {
                    let bw = (1.50 + 0.05 * b as f64) * 1e12;
                    let s = score(p, flops, bw, fixed);
                    if s < best.0 {
                        best = (s, flops, bw);
                    }
                }
            }
            println!(
                "  p {:>4}: mean |ln error| {:.3} at the engine's rates; {:.3} at best, {:.0} TFLOPS and {:.2} TB/s",
                if p.is_infinite() { "max".to_string() } else { format!("{p}") },
                at_engine,
                best.0,
                best.1 / 1e12,
                best.2 / 1e12
            );
        }
    }
}
