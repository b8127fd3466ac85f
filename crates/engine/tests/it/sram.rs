//! SRAM-only chips (Groq's TSP, Cerebras' wafer): memory without a GPU workspace,
//! pipelines over hundreds of chips, their own per-step overhead, and every DRAM chip
//! left exactly as it was (`audit/MODEL.md` section 4.1).

use super::common::*;
use disagg_engine::assumptions::ChipRates;
use disagg_engine::catalogue::MemoryKind;
use disagg_engine::disagg::layouts::{pool_layouts, Search};
use disagg_engine::disagg::plan::MAX_PLAN_COMBINATIONS;
use disagg_engine::dtype::Precision;
use disagg_engine::kernel::{step_cost, Placement, StepShape};
use disagg_engine::memory::{LayerShare, MemoryPlan, Part};

fn layout(tp: u32, pp: u32) -> Parallelism {
    Parallelism {
        tp,
        pp,
        dp: 1,
        ep: 1,
    }
}

#[test]
fn the_catalogue_names_its_sram_chips_and_only_them() {
    let sram: Vec<&str> = cat()
        .chips
        .iter()
        .filter(|c| c.memory_kind == MemoryKind::Sram)
        .map(|c| c.id.as_str())
        .collect();
    assert_eq!(sram, ["cerebras-wse3", "groq-lpu"]);
    // Statically scheduled: no kernel launches to pay for.
    for id in sram {
        let chip = cat().chip(id).unwrap();
        assert_eq!(chip.efficiency.kernel_overhead, Some(Seconds::ZERO), "{id}");
    }
}

#[test]
fn an_sram_chip_holds_weights_kv_and_one_tokens_activations_only() {
    let m = &cat().model("llama-3-8b").unwrap().ir;
    let chip = cat().chip("groq-lpu").unwrap();
    let a = Assumptions::default();
    let (par, context) = (layout(8, 16), 2048.0);
    let plan = MemoryPlan::for_part(
        m,
        Part::Whole,
        chip,
        par,
        Precision::uniform(WeightFormat::new(DType::Fp8)),
        DType::Fp8,
        context,
        &a,
    );
    // No runtime reserve, and the activations of one token: (4h + 2 * widest FFN) * 2 B.
    let share = LayerShare::of(m, par, Part::Whole, context, 0);
    let one_token = (4.0 * m.hidden as f64 + 2.0 * share.widest_ffn) * a.activation_bytes;
    assert_eq!(plan.workspace.value(), one_token);
    // Weights: a sixteenth of the layers plus one vocabulary table split eight ways, 1 B each.
    let table = m.vocab as f64 * m.hidden as f64 / 8.0;
    assert_eq!(plan.weights.value(), share.layer_params / 16.0 + table);
    // The capacity holds the weights, the workspace and max_seqs sequences' KV, and not one more.
    let n = plan.max_seqs() as f64;
    assert!(n >= 1.0);
    let used =
        |seqs: f64| plan.weights.value() + plan.workspace.value() + seqs * plan.kv_per_seq.value();
    assert!(used(n) <= chip.fast.capacity.value() + 1.0);
    assert!(used(n + 1.0) > chip.fast.capacity.value() + 1.0);
}

#[test]
fn an_8b_model_on_groq_fits_on_the_closed_form_stage_count_and_not_one_fewer() {
    // Llama 3 8B at FP8 with eight chips of a node sharing each layer (tp 8): a stage
    // holds layer_params/pp + one table (vocab * h / 8) and kv/pp per sequence beside
    // one token's activations, so one sequence fits from
    // pp = ceil((layer_params + kv) / (capacity - table - workspace)).
    let m = &cat().model("llama-3-8b").unwrap().ir;
    let chip = cat().chip("groq-lpu").unwrap();
    let a = Assumptions::default();
    let context = 2048.0;
    let share = LayerShare::of(m, layout(8, 1), Part::Whole, context, 0);
    let table = m.vocab as f64 * m.hidden as f64 / 8.0;
    let workspace = (4.0 * m.hidden as f64 + 2.0 * share.widest_ffn) * a.activation_bytes;
    let room = chip.fast.capacity.value() - table - workspace;
    let pp = ((share.layer_params + share.kv_values) / room).ceil() as u32;
    // 230 MB chips: 6 stages (48 chips) by hand, the weights alone being 7.5 GB.
    assert_eq!(pp, 6);
    let plan = |pp: u32| {
        MemoryPlan::for_part(
            m,
            Part::Whole,
            chip,
            layout(8, pp),
            Precision::uniform(WeightFormat::new(DType::Fp8)),
            DType::Fp8,
            context,
            &a,
        )
    };
    assert!(plan(pp).max_seqs() >= 1);
    assert_eq!(plan(pp - 1).max_seqs(), 0);
    // The same model under the GPU workspace rule (8% reserve, an 8,192-token chunk's
    // activations) would not fit a 230 MB chip at any depth.
    let gpu_workspace =
        chip.fast.capacity.value() * a.runtime_reserve + a.prefill_chunk_tokens * workspace;
    assert!(gpu_workspace > chip.fast.capacity.value());
}

#[test]
fn a_wafer_step_is_its_bytes_over_the_sram_bandwidth_plus_the_step_overhead() {
    // Llama 3.1 8B in BF16 on one WSE-3 at batch 1: no communication, no kernel
    // overhead; the step is the operators' roofline plus the host's step work.
    let m = &cat().model("llama-3.1-8b").unwrap().ir;
    let chip = cat().chip("cerebras-wse3").unwrap();
    let a = Assumptions::default().on_chip(chip);
    let rates = ChipRates::for_chip(chip, &a);
    let p = Placement {
        model: m,
        chip,
        parallelism: Parallelism::single(),
        weights: Precision::uniform(WeightFormat::new(DType::Bf16)),
        kv: DType::Bf16,
        rates,
        assumptions: a,
        cold_weight_fraction: 0.0,
    };
    let cost = step_cost(&p, StepShape::decode(1.0, 2048.0));
    let bw = chip.fast.bandwidth.value() * rates.bw_eff;
    let bytes: f64 = cost.ops.iter().map(|o| o.bytes.value()).sum();
    let memory: f64 = cost.ops.iter().map(|o| o.memory_time.value()).sum();
    assert!((memory - bytes / bw).abs() <= 1e-12 * memory);
    // Every layer's weights once at BF16 (the input table is only gathered from), and
    // no more than the whole model plus its KV.
    let params = m.params();
    assert!(
        bytes >= 2.0 * (params.total - params.embedding),
        "{bytes:e}"
    );
    assert!(bytes <= 2.0 * params.total + 1e9, "{bytes:e}");
    assert_eq!(cost.exposed_comm, Seconds::ZERO);
    assert_eq!(cost.overhead, cost.host);
    assert_eq!(cost.host, a.step_overhead + a.seq_overhead * 1.0);
    // The step is the operators' roofline: at least the bytes over the SRAM bandwidth,
    // at most that plus the flops over the compute rate; memory-bound but for the
    // attention core's few flops (under 5% of the step compute-bound).
    let t = cost.total.value() - cost.host.value();
    assert!((t - cost.busy.value()).abs() < 1e-15, "{t:e}");
    let compute = cost.flops().value() / (chip.bf16.value() * rates.mfu_bf16);
    assert!(t >= bytes / bw * (1.0 - 1e-12), "{t:e} vs {:e}", bytes / bw);
    assert!(t <= bytes / bw + compute, "{t:e}");
    let compute_bound: f64 = cost.ops.iter().map(|o| o.compute_bound_time.value()).sum();
    assert!(compute_bound < 0.05 * t, "{compute_bound:e} of {t:e}");
}

#[test]
fn a_chip_step_overhead_replaces_the_default_unless_the_user_pinned_one() {
    let mut chip = cat().chip("groq-lpu").unwrap().clone();
    let a = Assumptions::default();
    assert_eq!(a.on_chip(&chip).step_overhead, a.step_overhead);
    chip.efficiency.step_overhead = Some(Seconds::from_us(5.0));
    assert_eq!(a.on_chip(&chip).step_overhead, Seconds::from_us(5.0));
    let pinned = a.pin("step_overhead", 1e-4);
    assert_eq!(pinned.on_chip(&chip).step_overhead, Seconds::new(1e-4));
}

#[test]
fn every_dram_chip_keeps_the_gpu_workspace_bit_for_bit() {
    let m = &cat().model("llama-3.3-70b").unwrap().ir;
    let a = Assumptions::default();
    let par = layout(8, 1);
    let share = LayerShare::of(m, par, Part::Whole, 4096.0, 0);
    let activations = a.prefill_chunk_tokens
        * (4.0 * m.hidden as f64 + 2.0 * share.widest_ffn)
        * a.activation_bytes;
    let mut dram = 0;
    for chip in cat()
        .chips
        .iter()
        .filter(|c| c.memory_kind == MemoryKind::Dram)
    {
        let plan = MemoryPlan::for_part(
            m,
            Part::Whole,
            chip,
            par,
            Precision::uniform(WeightFormat::new(DType::Fp8)),
            DType::Fp8,
            4096.0,
            &a,
        );
        let old = chip.fast.capacity.value() * a.runtime_reserve + activations;
        assert_eq!(
            plan.workspace.value().to_bits(),
            old.to_bits(),
            "{}",
            chip.id
        );
        // No DRAM chip has a step cost of its own (a framework's profile may: llama.cpp,
        // `auto` on consumer and Apple chips, has its fitted one, so compare without).
        let generic = Assumptions {
            framework: disagg_engine::serving::FrameworkChoice::Generic,
            ..Assumptions::default()
        };
        assert_eq!(
            generic.on_chip(chip).step_overhead,
            a.step_overhead,
            "{}",
            chip.id
        );
        dram += 1;
    }
    assert!(dram >= 30, "{dram}");
}

#[test]
fn a_70b_model_is_planned_over_hundreds_of_groq_chips_within_the_bound() {
    let m = &cat().model("llama-2-70b").unwrap().ir;
    let chip = cat().chip("groq-lpu").unwrap();
    let chips = 576;
    // The planner's layouts stay under its bound, and the sweep's are among them.
    let all = pool_layouts(m, PoolRole::Colocated, chip, chips, Search::Exhaustive);
    assert!(all.len() <= MAX_PLAN_COMBINATIONS, "{}", all.len());
    let swept = pool_layouts(m, PoolRole::Colocated, chip, chips, Search::Sweep);
    assert!(swept.iter().any(|p| p.pp > 8), "{swept:?}");
    assert!(swept
        .iter()
        .all(|p| all.contains(p) && p.pp <= m.num_layers));
    // Planned with its layout open at batch 1: it fits, pipelined over tens of stages.
    let setup = Setup::new(m, Workload::new(2048, 2048), WeightFormat::new(DType::Int8));
    let pools = [(
        PoolRole::Colocated,
        PoolChoice {
            chip,
            chips,
            parallelism: None,
        },
    )];
    let (_, point) = plan(&setup, Axis::Aggregated, &pools, Some(1), 2).unwrap();
    let par = point.pools[0].parallelism;
    assert!(point.pools[0].memory.fits, "{par:?}");
    assert!(par.pp > 8 && par.tp * par.pp * 230 >= 70_000, "{par:?}");
    let rate = point.figures.tok_s_user.value();
    assert!(rate > 0.0 && rate.is_finite(), "{rate}");
}
