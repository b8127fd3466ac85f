//! Helpers the engine's tests share: the catalogue, one aggregated deployment stated
//! the way the tests vary it, and published points.

pub(crate) use disagg_engine::catalogue::chip::MAX_LOW_PRECISION_RATIO;
pub(crate) use disagg_engine::catalogue::model_preset::PARAM_TOLERANCE;
pub(crate) use disagg_engine::disagg::plan::{plan, PoolChoice};
pub(crate) use disagg_engine::disagg::{
    evaluate, Axis, Deployment, DeploymentPoint, PoolConfig, PoolRole, Setup,
};
pub(crate) use disagg_engine::kernel::{Bottleneck, StepCost, TimeBreakdown};
pub(crate) use disagg_engine::memory::MemoryUsage;
pub(crate) use disagg_engine::units::{BytesPerSecond, FlopsPerSecond, Seconds};
pub(crate) use disagg_engine::validation::{self, BenchmarkTable, Role};
pub(crate) use disagg_engine::{
    Assumptions, Catalogue, Chip, DType, EngineError, ModelIr, Parallelism, WeightFormat, Workload,
};
pub(crate) use proptest::prelude::*;

pub(crate) fn cat() -> &'static Catalogue {
    Catalogue::builtin()
}

/// The catalogue's `model` placed on `chip` in layout `par`, every weight in `weights`
/// and the KV cache in `kv`, with assumptions `a` and the chip's rates under them: the
/// kernel's input as the step tests state it.
pub(crate) fn placed(
    model: &str,
    chip: &'static Chip,
    par: Parallelism,
    weights: DType,
    kv: DType,
    a: Assumptions,
) -> disagg_engine::kernel::Placement<'static> {
    disagg_engine::kernel::Placement {
        model: &cat().model(model).unwrap().ir,
        chip,
        parallelism: par,
        weights: disagg_engine::Precision::uniform(WeightFormat::new(weights)),
        kv,
        rates: disagg_engine::assumptions::ChipRates::for_chip(chip, &a),
        assumptions: a,
        cold_weight_fraction: 0.0,
    }
}

/// `dp` attention replicas of one chip each, their experts split `ep` ways.
pub(crate) fn dp_ep(dp: u32, ep: u32) -> Parallelism {
    Parallelism {
        dp,
        ep,
        ..Parallelism::single()
    }
}

/// The batch of an aggregated deployment as these tests state it.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Batch {
    Fixed(u32),
    MaxThroughput,
}

/// One aggregated deployment: the fields these tests vary, turned into the engine's
/// [`Setup`] and colocated pool by [`Scenario::deployment`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct Scenario<'a> {
    pub(crate) model: &'a ModelIr,
    pub(crate) chip: &'a Chip,
    pub(crate) parallelism: Parallelism,
    pub(crate) weights: WeightFormat,
    pub(crate) kv: DType,
    pub(crate) workload: Workload,
    pub(crate) batch: Batch,
    pub(crate) assumptions: Assumptions,
}

impl<'a> Scenario<'a> {
    pub(crate) fn setup(&self) -> Setup<'a> {
        Setup {
            kv: self.kv,
            assumptions: self.assumptions,
            ..Setup::new(self.model, self.workload, self.weights)
        }
    }

    /// Plans the colocated pool of `chips` chips: this layout, or the planner's best
    /// when `layout` is `None`.
    fn plan(
        &self,
        chips: u32,
        layout: Option<Parallelism>,
    ) -> Result<DeploymentPoint, EngineError> {
        let batch = match self.batch {
            Batch::Fixed(b) => Some(b),
            Batch::MaxThroughput => None,
        };
        let pool = PoolChoice {
            chip: self.chip,
            chips,
            parallelism: layout,
        };
        plan(
            &self.setup(),
            Axis::Aggregated,
            &[(PoolRole::Colocated, pool)],
            batch,
            1,
        )
        .map(|(_, p)| p)
    }
}

/// What these tests read off an aggregated deployment, taken from the engine's one
/// point shape (the colocated pool's report and the figures).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Prediction {
    pub(crate) parallelism: Parallelism,
    pub(crate) chips: u32,
    pub(crate) batch: u32,
    pub(crate) max_batch: u64,
    pub(crate) fits: bool,
    pub(crate) reason: Option<String>,
    pub(crate) warnings: Vec<String>,
    pub(crate) ttft: Seconds,
    pub(crate) tpot: Seconds,
    pub(crate) decode_step: Seconds,
    pub(crate) prefill_step: Seconds,
    pub(crate) prefill_batch: f64,
    pub(crate) tok_s_user: f64,
    pub(crate) output_tok_s: f64,
    pub(crate) output_tok_s_per_chip: f64,
    pub(crate) input_tok_s: f64,
    pub(crate) memory: MemoryUsage,
    pub(crate) decode_time: TimeBreakdown,
    pub(crate) bottleneck: Bottleneck,
    pub(crate) decode_cost: StepCost,
    pub(crate) prefill_cost: StepCost,
}

impl From<DeploymentPoint> for Prediction {
    fn from(p: DeploymentPoint) -> Prediction {
        let pool = p
            .pool(PoolRole::Colocated)
            .expect("an aggregated point")
            .clone();
        let decode_cost = pool.costs.generation.expect("a decode step");
        let prefill_cost = pool.costs.prefill.expect("a prefill step");
        let f = p.figures;
        Prediction {
            parallelism: pool.parallelism,
            chips: f.chips,
            batch: f.batch,
            max_batch: p.max_batch(),
            fits: p.fits,
            reason: p.reason,
            warnings: p.warnings,
            ttft: f.ttft,
            tpot: f.tpot,
            decode_step: pool.step,
            prefill_step: prefill_cost.total,
            prefill_batch: pool.costs.prompts_per_prefill,
            tok_s_user: f.tok_s_user.value(),
            output_tok_s: f.output_tok_s.value(),
            output_tok_s_per_chip: f.output_tok_s_per_chip.value(),
            input_tok_s: f.input_tok_s.value(),
            memory: pool.memory,
            decode_time: pool.time,
            bottleneck: pool.bottleneck,
            decode_cost,
            prefill_cost,
        }
    }
}

/// The scenario with its own layout.
pub(crate) fn predict(s: &Scenario) -> Result<Prediction, EngineError> {
    match s.batch {
        Batch::Fixed(batch) => {
            let pool = PoolConfig {
                chip: s.chip,
                parallelism: s.parallelism,
            };
            evaluate(&s.setup(), &Deployment::Aggregated { pool, batch }).map(Prediction::from)
        }
        Batch::MaxThroughput => s
            .plan(s.parallelism.chips(), Some(s.parallelism))
            .map(Prediction::from),
    }
}

/// The scenario on `chips` chips with the planner's best layout.
pub(crate) fn best(s: &Scenario, chips: u32) -> Result<Prediction, EngineError> {
    s.plan(chips, None).map(Prediction::from)
}

/// A benchmark point evaluated as the validation table does.
pub(crate) fn predict_point(point: &validation::BenchmarkPoint) -> Prediction {
    validation::evaluate_point(cat(), point, &Assumptions::default())
        .unwrap()
        .into()
}

pub(crate) fn scenario<'a>(
    model: &'a str,
    chip: &'a Chip,
    par: Parallelism,
    dtype: DType,
    isl: u32,
    osl: u32,
    batch: Batch,
) -> Scenario<'a> {
    Scenario {
        model: &cat().model(model).unwrap().ir,
        chip,
        parallelism: par,
        weights: WeightFormat::new(dtype),
        kv: DType::Fp8,
        workload: Workload::new(isl, osl),
        batch,
        assumptions: Assumptions::default(),
    }
}

pub(crate) fn tp(n: u32) -> Parallelism {
    Parallelism {
        tp: n,
        pp: 1,
        dp: 1,
        ep: 1,
    }
}

/// The project's published point with this id.
pub(crate) fn published_point(id: &str) -> validation::BenchmarkPoint {
    let table = BenchmarkTable::builtin().unwrap();
    table.point.into_iter().find(|p| p.id == id).unwrap()
}

/// The rows from NVIDIA's TensorRT-LLM perf-overview page (trtllm-bench throughput runs).
pub(crate) fn perf_overview_rows() -> Vec<validation::BenchmarkPoint> {
    let table = BenchmarkTable::builtin().unwrap();
    table
        .point
        .into_iter()
        .filter(|p| p.source.contains("perf-overview.md"))
        .collect()
}
