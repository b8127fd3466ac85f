//! One operator's time from its two bounds: the time its FLOPs take at the effective
//! compute rate and the time its bytes take at the effective bandwidth.
//!
//! A roofline's `max(compute, memory)` assumes a kernel hides all of one under the
//! other. Measured matmuls do not near the ridge, where the two bounds are close: a
//! tiled kernel loads its first tiles before its first multiply and stores its last
//! results after its last one, and in between the two pipelines rarely run at full rate
//! together. DeepGEMM's published FP8 GEMMs on H800 (24 shapes, 64 to 8,192 rows) run up
//! to 1.6 times the roofline maximum where compute and memory are equal, and within a
//! few percent of it where one bound is several times the other. The Euclidean
//! combination `sqrt(compute^2 + memory^2)` reproduces that table better than the maximum
//! (`audit/AUDIT.md`, "Compute and memory near the ridge"; `examples/fit_roofline.rs`
//! fits the exponent), so every operator is costed with it (`audit/MODEL.md` section 3).

use crate::units::Seconds;

/// The time of an operator bounded by `compute` (its FLOPs at the effective compute
/// rate) and `memory` (its bytes at the effective bandwidth, or over a link):
/// `sqrt(compute^2 + memory^2)`. Equal to the larger bound when the other is zero, at
/// most 41% above it when the two are equal, and never more than their sum.
pub fn operator_time(compute: Seconds, memory: Seconds) -> Seconds {
    let (c, m) = (compute.0, memory.0);
    // Squares of a step's times (far below 1e150 s, which bounded work keeps them) are
    // finite, so the plain root suffices: `hypot`'s care costs the sweep 3% more work.
    Seconds((c * c + m * m).sqrt())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn t(c: f64, m: f64) -> f64 {
        operator_time(Seconds(c), Seconds(m)).0
    }

    #[test]
    fn one_bound_alone_is_the_time() {
        assert_eq!(t(0.0, 3e-3), 3e-3);
        assert_eq!(t(2e-6, 0.0), 2e-6);
        assert_eq!(t(0.0, 0.0), 0.0);
    }

    #[test]
    fn equal_bounds_cost_root_two_of_either() {
        let x = 7.5e-5;
        assert!((t(x, x) - x * 2f64.sqrt()).abs() < 1e-18);
    }

    #[test]
    fn a_three_four_five_operator() {
        assert!((t(3e-3, 4e-3) - 5e-3).abs() < 1e-15);
    }

    #[test]
    fn lies_between_the_larger_bound_and_the_sum_and_is_symmetric() {
        for &(c, m) in &[
            (1e-6, 1e-3),
            (1e-3, 1e-6),
            (2e-4, 3e-4),
            (5.0, 5.0),
            (1e-9, 1e9),
        ] {
            let time = t(c, m);
            assert!(time >= c.max(m) && time <= c + m, "{c} {m} -> {time}");
            assert_eq!(time, t(m, c));
        }
    }

    #[test]
    fn a_bound_several_times_the_other_barely_moves_the_time() {
        // One bound a fifth of the other adds under 2%: far from the ridge the roofline's
        // maximum stands.
        assert!(t(1.0, 0.2) / 1.0 < 1.02);
    }
}
