//! Precision per component: each component's weights take its own format, in memory and
//! in the bytes and rate of a step, and a setup that names no component predicts what
//! one format for the whole model predicts, to the bit.

use crate::common::*;
use disagg_engine::assumptions::ChipRates;
use disagg_engine::kernel::{operator_table, step_cost, OpKind, Placement, StepShape};
use disagg_engine::memory::{MemoryPlan, Part};
use disagg_engine::model::{Attention, Ffn, ModelIr};
use disagg_engine::Precision;

fn gpt_oss() -> &'static ModelIr {
    &cat().model("gpt-oss-120b").unwrap().ir
}

/// gpt-oss as published: MXFP4 experts, BF16 attention, router and vocabulary tables.
fn as_published() -> Precision {
    Precision::with(WeightFormat::new(DType::Bf16), Some(DType::Mxfp4), None)
}

fn one_chip() -> Parallelism {
    Parallelism {
        tp: 1,
        pp: 1,
        dp: 1,
        ep: 1,
    }
}

fn placement(weights: Precision) -> Placement<'static> {
    let chip = cat().chip("b200").unwrap();
    let a = Assumptions::default();
    Placement {
        model: gpt_oss(),
        chip,
        parallelism: one_chip(),
        weights,
        kv: DType::Fp8,
        rates: ChipRates::for_chip(chip, &a),
        assumptions: a,
        cold_weight_fraction: 0.0,
    }
}

/// The weight bytes of `op`'s rows in a step of `p`.
fn weight_bytes(p: &Placement, shape: StepShape, op: OpKind) -> f64 {
    let cost = step_cost(p, shape);
    operator_table(p, &cost, "step")
        .rows
        .iter()
        .filter(|r| r.op == op.name())
        .map(|r| r.weight_bytes.value())
        .sum()
}

fn close(got: f64, want: f64) {
    assert!(
        (got - want).abs() <= 1e-12 * want.abs(),
        "{got} against the hand-computed {want}"
    );
}

#[test]
fn memory_of_mxfp4_experts_beside_bf16_attention_is_the_sum_of_its_parts() {
    let m = gpt_oss();
    let h = m.hidden;
    // Hand count, one chip holding everything: each layer's attention and router at
    // 2 bytes, its 128 experts (3 h i each) at 4.25 bits, and the two untied vocabulary
    // tables at 2 bytes.
    let (mut dense, mut experts) = (0.0, 0.0);
    for g in &m.groups {
        let Ffn::Moe {
            experts: e,
            expert_intermediate,
            ..
        } = g.ffn
        else {
            panic!("every gpt-oss layer has experts");
        };
        let n = g.count as f64;
        dense += n * (g.attention.params_per_rank(h, 1) + h as f64 * e as f64);
        experts += n * e as f64 * 3.0 * h as f64 * expert_intermediate as f64;
    }
    let tables = 2.0 * m.vocab as f64 * h as f64;
    let want = dense * 2.0 + experts * 4.25 / 8.0 + tables * 2.0;
    let chip = cat().chip("b200").unwrap();
    let plan = MemoryPlan::for_part(
        m,
        Part::Whole,
        chip,
        one_chip(),
        as_published(),
        DType::Fp8,
        1024.0,
        &Assumptions::default(),
    );
    close(plan.weights.value(), want);
    // About 65 GB: the MXFP4 experts are most of it.
    assert!((60e9..70e9).contains(&want), "{want}");
    // The LM head in FP8 saves one byte per weight of both tables.
    let fp8_head = Precision::with(
        WeightFormat::new(DType::Bf16),
        Some(DType::Mxfp4),
        Some(DType::Fp8),
    );
    let plan = MemoryPlan::for_part(
        m,
        Part::Whole,
        chip,
        one_chip(),
        fp8_head,
        DType::Fp8,
        1024.0,
        &Assumptions::default(),
    );
    close(plan.weights.value(), want - tables);
}

#[test]
fn a_decode_step_reads_each_components_weights_in_its_format() {
    let m = gpt_oss();
    let h = m.hidden as f64;
    let shape = StepShape::decode(1.0, 1000.0);
    let mixed = placement(as_published());
    let bf16 = placement(Precision::uniform(WeightFormat::new(DType::Bf16)));
    // One sequence's token picks top-4 of 128 experts in each of the 36 layers:
    // 4 x 3 h i weights per layer at 4.25 bits.
    let Ffn::Moe {
        expert_intermediate,
        top_k,
        ..
    } = m.groups[0].ffn
    else {
        panic!("gpt-oss has experts");
    };
    let layers: f64 = m.groups.iter().map(|g| g.count as f64).sum();
    let routed = layers * top_k as f64 * 3.0 * h * expert_intermediate as f64 * 4.25 / 8.0;
    let got = weight_bytes(&mixed, shape, OpKind::RoutedExperts);
    assert!(
        (got - routed).abs() < 1e-9 * routed,
        "{got} against {routed}"
    );
    // Attention and the LM head read the same bytes as in an all-BF16 model.
    for op in [OpKind::AttnProj, OpKind::LmHead] {
        assert_eq!(
            weight_bytes(&mixed, shape, op),
            weight_bytes(&bf16, shape, op),
            "{}",
            op.name()
        );
    }
    close(
        weight_bytes(&mixed, shape, OpKind::LmHead),
        m.vocab as f64 * h * 2.0,
    );
}

#[test]
fn each_matmul_runs_at_its_components_rate() {
    // A long prefill is compute bound: the experts' rows of the mixed model take the
    // compute time they take in an all-MXFP4 model (the FP4 rate), its attention rows the
    // compute time they take in an all-BF16 model.
    let shape = StepShape {
        seqs: 4.0,
        new_tokens: 4096.0,
        ..StepShape::decode(4.0, 0.0)
    };
    let compute = |p: &Placement, op: OpKind| step_cost(p, shape).op(op).compute_time.value();
    let time = |p: &Placement, op: OpKind| step_cost(p, shape).op(op).time.value();
    let mixed = placement(as_published());
    let bf16 = placement(Precision::uniform(WeightFormat::new(DType::Bf16)));
    let fp4 = placement(Precision::uniform(WeightFormat::new(DType::Mxfp4)));
    assert_eq!(
        compute(&mixed, OpKind::AttnProj),
        compute(&bf16, OpKind::AttnProj)
    );
    assert_eq!(
        compute(&mixed, OpKind::RoutedExperts),
        compute(&fp4, OpKind::RoutedExperts)
    );
    assert!(time(&mixed, OpKind::RoutedExperts) < time(&bf16, OpKind::RoutedExperts));
}

/// gpt-oss as published with its attention output projections in NVFP4, as NVIDIA's
/// v2 DeepSeek-R1 FP4 checkpoints hold theirs.
fn nvfp4_out() -> Precision {
    as_published().with_attn_out(Some(DType::Nvfp4))
}

/// The output projections' weights over the whole model on one chip, and all of
/// attention's.
fn attention_weights(m: &ModelIr) -> (f64, f64) {
    let h = m.hidden;
    m.groups.iter().fold((0.0, 0.0), |(out, all), g| {
        let n = g.count as f64;
        (
            out + n * g.attention.out_params_per_rank(h, 1),
            all + n * g.attention.params_per_rank(h, 1),
        )
    })
}

#[test]
fn an_output_projection_in_its_own_format_is_sized_read_and_run_as_its_own() {
    let m = gpt_oss();
    // GQA's output projection maps heads x head size into the hidden size.
    let Attention::Gqa {
        heads, head_dim, ..
    } = m.groups[0].attention
    else {
        panic!("gpt-oss has GQA attention");
    };
    let (out, all) = attention_weights(m);
    let layers: f64 = m.groups.iter().map(|g| g.count as f64).sum();
    close(
        out,
        layers * heads as f64 * head_dim as f64 * m.hidden as f64,
    );
    // Memory: the output projections' bytes at 4.5 bits in place of 16, nothing else.
    let plan = |w: Precision| {
        MemoryPlan::for_part(
            m,
            Part::Whole,
            cat().chip("b200").unwrap(),
            one_chip(),
            w,
            DType::Fp8,
            1024.0,
            &Assumptions::default(),
        )
        .weights
        .value()
    };
    close(
        plan(as_published()) - plan(nvfp4_out()),
        out * (2.0 - 4.5 / 8.0),
    );
    // A decode step reads the two parts of attention at their own widths.
    let decode = StepShape::decode(1.0, 1000.0);
    close(
        weight_bytes(&placement(nvfp4_out()), decode, OpKind::AttnProj),
        (all - out) * 2.0 + out * 4.5 / 8.0,
    );
    // A long prefill computes each part at its own rate: the BF16 model's attention
    // compute for the rest, the all-NVFP4 model's for the output projection.
    let prefill = StepShape {
        seqs: 4.0,
        new_tokens: 4096.0,
        ..StepShape::decode(4.0, 0.0)
    };
    let compute = |w: Precision| {
        step_cost(&placement(w), prefill)
            .op(OpKind::AttnProj)
            .compute_time
            .value()
    };
    close(
        compute(nvfp4_out()),
        compute(Precision::uniform(WeightFormat::new(DType::Bf16))) * (all - out) / all
            + compute(Precision::uniform(WeightFormat::new(DType::Nvfp4))) * out / all,
    );
    // The rest of the step is untouched.
    let step = |w: Precision| step_cost(&placement(w), decode);
    for op in [OpKind::RoutedExperts, OpKind::LmHead, OpKind::AttnCore] {
        assert_eq!(
            step(nvfp4_out()).op(op),
            step(as_published()).op(op),
            "{}",
            op.name()
        );
    }
    assert_eq!(
        nvfp4_out().describe(),
        "bf16, experts mxfp4, attention output nvfp4"
    );
}

#[test]
fn no_component_set_predicts_what_one_format_predicts_to_the_bit() {
    // Every published point that names no component, predicted as stated and with
    // each component set explicitly to its weight dtype: the same numbers, bit for bit
    // (a component left unset is the weight format, and a format equal to it adds an
    // exact zero).
    let table = BenchmarkTable::builtin().unwrap();
    let plain: Vec<_> = table
        .point
        .iter()
        .filter(|p| {
            p.expert_dtype.is_none() && p.attn_out_dtype.is_none() && p.lm_head_dtype.is_none()
        })
        .filter(|p| p.weight_bits.is_none())
        .cloned()
        .collect();
    assert!(plain.len() > 100, "{}", plain.len());
    let explicit: Vec<_> = plain
        .iter()
        .map(|p| validation::BenchmarkPoint {
            expert_dtype: Some(p.weight_dtype),
            attn_out_dtype: Some(p.weight_dtype),
            lm_head_dtype: Some(p.weight_dtype),
            ..p.clone()
        })
        .collect();
    let run = |point: Vec<validation::BenchmarkPoint>| {
        validation::run(
            cat(),
            &BenchmarkTable {
                point,
                unmapped: Vec::new(),
            },
            &Assumptions::default(),
        )
        .rows
    };
    let (a, b) = (run(plain), run(explicit));
    for (x, y) in a.iter().zip(&b) {
        assert_eq!(
            x.predicted.map(f64::to_bits),
            y.predicted.map(f64::to_bits),
            "{}",
            x.point.id
        );
    }
}

#[test]
fn the_v2_checkpoints_rows_read_bf16_attention_with_an_nvfp4_output_projection() {
    // InferenceMAX's NVIDIA FP4 DeepSeek-R1 rows serve the v2 checkpoint: between the
    // first recipe (attention all BF16) and an all-FP4 reading.
    let point = published_point("IMXA06a");
    assert_eq!(
        (point.weight_dtype, point.expert_dtype, point.attn_out_dtype),
        (DType::Bf16, Some(DType::Nvfp4), Some(DType::Nvfp4))
    );
    let v1 = validation::BenchmarkPoint {
        attn_out_dtype: None,
        ..point.clone()
    };
    let fp4 = validation::BenchmarkPoint {
        weight_dtype: DType::Nvfp4,
        expert_dtype: None,
        attn_out_dtype: None,
        ..point.clone()
    };
    let rate = |p: &validation::BenchmarkPoint| predict_point(p).output_tok_s_per_chip;
    assert!(rate(&v1) < rate(&point) && rate(&point) < rate(&fp4));
}

#[test]
fn the_mapped_mixed_precision_points_move_down() {
    // NVIDIA's DeepSeek-R1 FP4 checkpoints keep attention in BF16 beside NVFP4 experts:
    // more bytes and a slower rate for attention than the all-FP4 reading gave, so the
    // prediction falls.
    for id in ["TRTDS-01", "TRTDS-02"] {
        let point = published_point(id);
        assert_eq!(
            (point.weight_dtype, point.expert_dtype),
            (DType::Bf16, Some(DType::Nvfp4)),
            "{id}"
        );
        let all_fp4 = validation::BenchmarkPoint {
            weight_dtype: DType::Fp4,
            expert_dtype: None,
            ..point.clone()
        };
        let mixed = predict_point(&point).output_tok_s_per_chip;
        let flat = predict_point(&all_fp4).output_tok_s_per_chip;
        assert!(mixed < flat, "{id}: {mixed} against {flat}");
    }
}

#[test]
fn a_kv_cache_in_block_scaled_fp8_is_refused_by_name() {
    let m = &cat().model("deepseek-r1").unwrap().ir;
    let mut s = Setup::new(
        m,
        Workload::new(1024, 128),
        WeightFormat::new(DType::Fp8Block),
    );
    assert!(s.validate().is_ok());
    s.kv = DType::Fp8Block;
    let why = s.validate().unwrap_err().to_string();
    assert!(
        why.contains("KV-cache dtype fp8-block is a weight format") && why.ends_with("is fp8"),
        "{why}"
    );
    // Every other format may hold it.
    assert!(DType::ALL
        .into_iter()
        .filter(|d| *d != DType::Fp8Block)
        .all(DType::holds_kv));
}

#[test]
fn the_perf_overview_rows_read_their_modelopt_checkpoints() {
    // The page's models are ModelOpt checkpoints, NVFP4 or FP8 with a 16-bit LM head:
    // every row of the page says so, dense or MoE, and none keeps a flat 4 bits.
    let rows = perf_overview_rows();
    assert!(rows.len() >= 60, "{}", rows.len());
    for p in rows {
        assert!(
            matches!(p.weight_dtype, DType::Nvfp4 | DType::Fp8),
            "{}: {:?}",
            p.id,
            p.weight_dtype
        );
        assert_eq!(p.lm_head_dtype, Some(DType::Bf16), "{}", p.id);
    }
}
