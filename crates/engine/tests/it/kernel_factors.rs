//! A serving framework's kernel factors (`serving::KernelFactors`, MODEL.md section
//! 3.3): their closed forms on a step, where a pool takes them, and that a framework
//! without any leaves every prediction as it was, to the bit.

use super::common::*;
use disagg_engine::assumptions::ChipRates;
use disagg_engine::kernel::{operator_time, step_cost, OpKind, Placement, StepShape};
use disagg_engine::serving::{Framework, FrameworkChoice, KernelFactors};

/// Llama 3.1 8B in BF16 on one H100 with `rates`.
fn llama_on_h100(rates: ChipRates) -> Placement<'static> {
    let a = Assumptions::default();
    Placement {
        model: &cat().model("llama-3.1-8b").unwrap().ir,
        chip: cat().chip("h100-sxm").unwrap(),
        parallelism: Parallelism::single(),
        weights: disagg_engine::Precision::uniform(WeightFormat::new(DType::Bf16)),
        kv: DType::Bf16,
        rates,
        assumptions: a,
        cold_weight_fraction: 0.0,
    }
}

fn close(a: f64, b: f64) -> bool {
    (a - b).abs() <= 1e-12 * b.abs()
}

#[test]
fn a_compute_factor_divides_compute_time_and_a_bandwidth_factor_memory_time() {
    let chip = cat().chip("h100-sxm").unwrap();
    let base = ChipRates::for_chip(chip, &Assumptions::default());
    let with =
        |compute, bandwidth| llama_on_h100(base.scaled(KernelFactors { compute, bandwidth }));
    // Every layer of the model is alike, so each operator's time is its two summed
    // bounds combined (`operator_time` is homogeneous).
    let combined =
        |op: &disagg_engine::kernel::OpCost| operator_time(op.compute_time, op.memory_time).value();
    // A prefill step of eight 2,048-token prompts: the layers' weight matmuls compute
    // bound (the LM head sees one token a prompt, and streams).
    let gemms = [OpKind::AttnProj, OpKind::DenseFfn];
    let prefill = StepShape::prefill(8.0, 2048.0, 0.0);
    let before = step_cost(&with(None, None), prefill);
    for m in [0.5, 0.8, 1.25] {
        let after = step_cost(&with(Some(m), None), prefill);
        let streamed = step_cost(&with(None, Some(m)), prefill);
        for kind in gemms {
            let (b, a, s) = (before.op(kind), after.op(kind), streamed.op(kind));
            assert_eq!(b.compute_bound_time, b.time, "{kind:?} compute bound");
            assert!(close(a.compute_time.value(), b.compute_time.value() / m));
            assert_eq!(a.memory_time, b.memory_time, "{kind:?}");
            assert!(close(a.time.value(), combined(a)), "{kind:?} x{m}");
            // Compute bound many times over: the time follows the compute factor
            // within 1%, and a bandwidth factor moves it by under 1%.
            assert!((a.time.value() * m / b.time.value() - 1.0).abs() < 0.01);
            assert!(close(s.memory_time.value(), b.memory_time.value() / m));
            assert!(close(s.time.value(), combined(s)), "{kind:?}");
            assert!((s.time.value() / b.time.value() - 1.0).abs() < 0.01);
        }
    }
    // Decoding one sequence: every weight matmul streams its weights, memory bound.
    let gemms = [OpKind::AttnProj, OpKind::DenseFfn, OpKind::LmHead];
    let decode = StepShape::decode(1.0, 1000.0);
    let before = step_cost(&with(None, None), decode);
    for m in [0.8, 1.25] {
        let after = step_cost(&with(None, Some(m)), decode);
        let computed = step_cost(&with(Some(m), None), decode);
        for kind in gemms {
            let (b, a, c) = (before.op(kind), after.op(kind), computed.op(kind));
            assert_eq!(b.compute_bound_time.value(), 0.0, "{kind:?} memory bound");
            assert!(close(a.memory_time.value(), b.memory_time.value() / m));
            assert!(close(a.time.value(), combined(a)), "{kind:?} x{m}");
            assert!((a.time.value() * m / b.time.value() - 1.0).abs() < 0.01);
            assert!(close(c.compute_time.value(), b.compute_time.value() / m));
            assert!(close(c.time.value(), combined(c)), "{kind:?}");
            assert!((c.time.value() / b.time.value() - 1.0).abs() < 0.01);
        }
    }
    // A factor never takes an efficiency past the whole peak.
    let full = base.scaled(KernelFactors {
        compute: Some(10.0),
        bandwidth: Some(10.0),
    });
    assert_eq!((full.mfu_bf16, full.bw_eff), (1.0, 1.0));
}

#[test]
fn a_pool_takes_its_frameworks_factors_unless_the_user_pinned_the_knob() {
    let generic = Assumptions {
        framework: FrameworkChoice::Generic,
        ..Assumptions::default()
    };
    for chip in &cat().chips {
        let own = ChipRates::for_chip(chip, &generic);
        for f in Framework::ALL {
            let a = Assumptions {
                framework: FrameworkChoice::Given(f),
                ..Assumptions::default()
            };
            let k = f.defaults(chip).kernels;
            // The framework's own collectives ride along with its rates.
            let own = ChipRates {
                custom_all_reduce: f.defaults(chip).custom_all_reduce,
                all_to_all_floor: f.defaults(chip).all_to_all_floor,
                ..own
            };
            // The one resolution: the chip's rates times the framework's factors, and
            // the chip's own to the bit where the framework has none.
            assert_eq!(
                ChipRates::for_chip(chip, &a),
                own.scaled(k),
                "{f} {}",
                chip.id
            );
            if k == KernelFactors::CHIPS {
                assert_eq!(ChipRates::for_chip(chip, &a), own, "{f} {}", chip.id);
            }
        }
    }
    // A profile with factors (none in `serving/mod.rs` has earned any yet, AUDIT "Serving
    // frameworks"): both apply, a pinned knob keeps the chip's value and the other
    // still takes its factor, and each names its framework until pinned.
    use disagg_engine::assumptions::{BW_EFF, MFU};
    use disagg_engine::serving::Defaults;
    let h200 = cat().chip("h200").unwrap();
    let k = KernelFactors {
        compute: Some(0.8),
        bandwidth: Some(1.1),
    };
    let profile = Some((
        Framework::Sglang,
        Defaults {
            kernels: k,
            ..Framework::Sglang.defaults(h200)
        },
    ));
    let sglang = Assumptions {
        framework: FrameworkChoice::Given(Framework::Sglang),
        ..Assumptions::default()
    };
    let own = ChipRates {
        custom_all_reduce: Framework::Sglang.defaults(h200).custom_all_reduce,
        ..ChipRates::for_chip(h200, &generic)
    };
    assert_eq!(ChipRates::under(h200, &sglang, profile), own.scaled(k));
    assert!(ChipRates::under(h200, &sglang, profile).mfu_fp8 < own.mfu_fp8);
    for (index, name, left) in [
        (MFU, "mfu", KernelFactors { compute: None, ..k }),
        (
            BW_EFF,
            "bw_eff",
            KernelFactors {
                bandwidth: None,
                ..k
            },
        ),
    ] {
        let factor = sglang.kernel_factor_under(h200, index, profile);
        assert_eq!(factor.map(|(f, _)| f), Some(Framework::Sglang));
        let pinned = sglang.pin(name, 0.5);
        assert_eq!(pinned.kernel_factor_under(h200, index, profile), None);
        // The pinned global value yields to the chip's own as it always has; only the
        // framework's factor is gone.
        let chip_own = ChipRates {
            custom_all_reduce: own.custom_all_reduce,
            ..ChipRates::for_chip(h200, &generic.pin(name, 0.5))
        };
        assert_eq!(
            ChipRates::under(h200, &pinned, profile),
            chip_own.scaled(left)
        );
    }
    assert_eq!(
        ChipRates::under(h200, &generic, None),
        ChipRates::for_chip(h200, &generic)
    );
    assert_eq!(ChipRates::for_chip(h200, &generic).custom_all_reduce, None);
}

/// With every framework's factors turned off (the knobs pinned at their global values,
/// which changes nothing else), each validation row of a framework without factors
/// predicts exactly what it does with them on.
#[test]
fn a_framework_without_factors_leaves_every_validation_row_bit_identical() {
    let table = BenchmarkTable::builtin().unwrap();
    let a = Assumptions::default();
    let off = a.pin("mfu", a.mfu).pin("bw_eff", a.bw_eff);
    let on = validation::run(cat(), &table, &a);
    let without = validation::run(cat(), &table, &off);
    for (r, w) in on.rows.iter().zip(&without.rows) {
        assert_eq!(r.point.id, w.point.id);
        let has_factors = cat().chip(&r.point.chip).is_ok_and(|c| {
            r.point
                .framework
                .serving()
                .for_chip(c)
                .is_some_and(|f| f.defaults(c).kernels != KernelFactors::CHIPS)
        });
        if !has_factors {
            assert_eq!(
                r.predicted.map(f64::to_bits),
                w.predicted.map(f64::to_bits),
                "{}",
                r.point.id
            );
        }
    }
}
