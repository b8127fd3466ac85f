//! Everything about a deployment that is not its chips: model, workload, dtypes,
//! modelling assumptions, the inter-pool link and the speculation inputs.

use crate::assumptions::Assumptions;
use crate::dtype::{DType, Precision, WeightFormat};
use crate::error::{EngineError, Result};
use crate::limits::{BITS_PER_WEIGHT, LINK_BYTES_PER_S, MAX_DRAFT_TOKENS, MAX_EAGLE_LAYERS};
use crate::model::ModelIr;
use crate::units::{BytesPerSecond, Seconds};
use crate::workload::Workload;

/// What drafts tokens for speculative decoding.
#[derive(Clone, Copy, Debug)]
pub enum Draft<'a> {
    /// The target's own multi-token-prediction layers, run on the target's chips.
    Mtp,
    /// A separate (smaller) model.
    Model { id: &'a str, ir: &'a ModelIr },
    /// An EAGLE-style draft head (Li et al. 2024, 2025): `layers` decoder layers of the
    /// target's width, fed the target's hidden features, run on the target's chips and
    /// sharing its embedding and LM head (`speculative::eagle_model`).
    Eagle { layers: u32 },
}

impl Draft<'_> {
    /// Whether the draft can only run on the target's own chips (MTP layers and an
    /// EAGLE head read the target's hidden states), never on a pool of its own.
    pub fn on_target_chips(&self) -> bool {
        matches!(self, Draft::Mtp | Draft::Eagle { .. })
    }

    /// The draft's name in labels: `MTP`, `EAGLE` or the draft model's id.
    pub fn name(&self) -> String {
        match self {
            Draft::Mtp => "MTP".to_string(),
            Draft::Eagle { .. } => "EAGLE".to_string(),
            Draft::Model { id, .. } => id.to_string(),
        }
    }
}

/// An EAGLE head's decoder layers when no one says otherwise: one, as EAGLE, EAGLE-2
/// and EAGLE-3 ship it.
pub const DEFAULT_EAGLE_LAYERS: u32 = 1;

/// Speculative-decoding inputs: per-token acceptance `a` and `K` drafted tokens.
#[derive(Clone, Copy, Debug)]
pub struct Speculation<'a> {
    pub draft: Draft<'a>,
    pub acceptance: f64,
    pub draft_tokens: u32,
}

/// Expected tokens per verify cycle when `draft_tokens` drafted tokens are each accepted
/// with probability `acceptance`: `(1 - a^(K+1)) / (1 - a)` (`K + 1` at `a = 1`).
pub fn expected_tokens(acceptance: f64, draft_tokens: u32) -> f64 {
    let a = acceptance;
    let k = draft_tokens as f64;
    if (1.0 - a).abs() < 1e-12 {
        k + 1.0
    } else {
        (1.0 - a.powf(k + 1.0)) / (1.0 - a)
    }
}

impl Speculation<'_> {
    /// Expected tokens per verify cycle (see [`expected_tokens`]).
    pub fn expected_tokens(&self) -> f64 {
        expected_tokens(self.acceptance, self.draft_tokens)
    }

    pub fn validate(&self) -> Result<()> {
        if !(self.acceptance.is_finite() && (0.0..=1.0).contains(&self.acceptance)) {
            return Err(EngineError::InvalidInput(format!(
                "acceptance rate {} must lie between 0 and 1",
                self.acceptance
            )));
        }
        if let Draft::Eagle { layers } = self.draft {
            if !(1..=MAX_EAGLE_LAYERS).contains(&layers) {
                return Err(EngineError::InvalidInput(format!(
                    "EAGLE head layers {layers} must lie between 1 and {MAX_EAGLE_LAYERS}"
                )));
            }
        }
        if !(1..=MAX_DRAFT_TOKENS).contains(&self.draft_tokens) {
            return Err(EngineError::InvalidInput(format!(
                "drafted tokens {} must lie between 1 and {MAX_DRAFT_TOKENS}",
                self.draft_tokens
            )));
        }
        Ok(())
    }
}

/// Everything about a deployment that is not its chips: model, workload, dtypes,
/// modelling assumptions and the axis-specific inputs.
#[derive(Clone, Copy, Debug)]
pub struct Setup<'a> {
    pub model: &'a ModelIr,
    pub workload: Workload,
    /// Attention and the other non-expert weights; every component the setup does not
    /// name follows it.
    pub weights: WeightFormat,
    /// The experts' weights (routed and shared); `None`: `weights`.
    pub expert_dtype: Option<DType>,
    /// The attention output projections; `None`: `weights`.
    pub attn_out_dtype: Option<DType>,
    /// The LM head and embedding tables; `None`: `weights`.
    pub lm_head_dtype: Option<DType>,
    pub kv: DType,
    pub assumptions: Assumptions,
    /// Per-chip bandwidth of the link between two pools; `None` uses the catalogue
    /// (scale-up when both pools fit one scale-up domain of the same chip, else
    /// scale-out).
    pub inter_pool_link: Option<BytesPerSecond>,
    /// One-way latency of a named link between pools (`catalogue/links`, the CLI's
    /// `--link`); `None`: the slower of the two chips' own links.
    pub inter_pool_latency: Option<Seconds>,
    /// Ship the KV cache layer by layer while prefill still runs (prefill/decode).
    pub kv_streaming: bool,
    pub speculation: Speculation<'a>,
    /// Prefill/decode: the decode pool speculates with `speculation`, its draft (MTP
    /// layers, an EAGLE head or a draft model) colocated on the decode chips.
    pub speculative_decode: bool,
}

impl<'a> Setup<'a> {
    /// A setup with the defaults the CLI and page start from: FP8 KV cache, the default
    /// assumptions, the catalogue's links, layer-wise KV streaming, and MTP drafting at
    /// acceptance 0.8 with 4 drafted tokens.
    pub fn new(model: &'a ModelIr, workload: Workload, weights: WeightFormat) -> Setup<'a> {
        Setup {
            model,
            workload,
            weights,
            expert_dtype: None,
            attn_out_dtype: None,
            lm_head_dtype: None,
            kv: DType::Fp8,
            assumptions: Assumptions::default(),
            inter_pool_link: None,
            inter_pool_latency: None,
            kv_streaming: true,
            speculation: Speculation {
                draft: Draft::Mtp,
                acceptance: 0.8,
                draft_tokens: 4,
            },
            speculative_decode: false,
        }
    }

    /// Each component's weight format (`audit/MODEL.md` section 4.1).
    pub fn precision(&self) -> Precision {
        Precision::with(self.weights, self.expert_dtype, self.lm_head_dtype)
            .with_attn_out(self.attn_out_dtype)
    }

    /// A warning when the mean request (prompt plus output) runs past the model's
    /// positions: the figures still follow the formulas, but the model as published
    /// cannot serve such a request without context extension.
    pub fn context_warning(&self) -> Option<String> {
        self.context_overrun().map(|(context, window)| {
            format!(
                "the request's context ({context} tokens of prompt and output) exceeds the model's {window} positions"
            )
        })
    }

    /// The mean request's context and the model's window, when the first exceeds the
    /// second.
    pub fn context_overrun(&self) -> Option<(f64, u32)> {
        let context = self.workload.request_context();
        let window = self.model.max_context;
        (context > window as f64).then_some((context, window))
    }

    pub fn validate(&self) -> Result<()> {
        self.workload.validate()?;
        self.assumptions.validate()?;
        if !self.kv.holds_kv() {
            return Err(EngineError::InvalidInput(format!(
                "KV-cache dtype {}",
                self.kv.kv_refusal()
            )));
        }
        // A static batch runs until its longest output ends; with spread lengths that
        // is an order statistic the model does not hold, so it is refused, not guessed.
        if self.assumptions.scheduling == crate::serving::Scheduling::Static
            && self.workload.output_cv > 0.0
        {
            return Err(EngineError::InvalidInput(format!(
                "scheduling static is modelled for fixed output lengths (a static batch runs until its longest output ends): set the output-length spread to 0, not {}",
                self.workload.output_cv
            )));
        }
        if let Some(bits) = self.weights.bits_override {
            if !(bits.is_finite() && BITS_PER_WEIGHT.contains(&bits)) {
                return Err(EngineError::InvalidInput(format!(
                    "bits per weight {} must lie between {} and {}",
                    crate::error::echoed(bits),
                    BITS_PER_WEIGHT.start(),
                    BITS_PER_WEIGHT.end()
                )));
            }
        }
        if let Some(bw) = self.inter_pool_link {
            if !LINK_BYTES_PER_S.contains(&bw.0) {
                return Err(EngineError::InvalidInput(format!(
                    "the inter-pool link bandwidth must lie between {} and {} Gb/s",
                    LINK_BYTES_PER_S.start() * 8.0 / 1e9,
                    LINK_BYTES_PER_S.end() * 8.0 / 1e9
                )));
            }
        }
        if let Some(l) = self.inter_pool_latency {
            if !(l.0.is_finite() && (0.0..=1.0).contains(&l.0)) {
                return Err(EngineError::InvalidInput(format!(
                    "the inter-pool link latency must lie between 0 and 1 s, not {} s",
                    l.0
                )));
            }
        }
        if self.speculative_decode
            && matches!(self.speculation.draft, Draft::Mtp)
            && self.model.mtp_layers == 0
        {
            return Err(EngineError::InvalidInput(
                "the decode pool cannot speculate with MTP: this model ships no multi-token-prediction layers (num_nextn_predict_layers); choose a draft model".into(),
            ));
        }
        self.speculation.validate()
    }
}
