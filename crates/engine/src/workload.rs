//! The requests a deployment serves: prompt and output lengths, their spread, the
//! cached prefix, and the step shapes every axis costs from them.

use crate::error::{EngineError, Result};
use crate::kernel::StepShape;
use crate::limits::{
    MAX_CONTEXT, MAX_LENGTH, MAX_OUTPUT_CV, MAX_PROMPTS, PROMPTS_PER_USER, REQUEST_RATE,
};
use crate::parallel::Parallelism;
use serde::{Deserialize, Serialize};

/// Prompt and output lengths in tokens.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Workload {
    pub isl: u32,
    /// Mean output length.
    pub osl: u32,
    /// Leading prompt tokens whose KV is already cached (a prefix-cache hit, resident
    /// in memory): prefill computes only the rest, attending over the whole prompt.
    /// Cached tokens still count as input tokens served.
    #[serde(default)]
    pub cached: u32,
    /// Spread of the output lengths: their standard deviation over their mean (0: every
    /// request generates `osl` tokens). A long request stays in the batch for longer,
    /// so the sequences running at any moment are longer than the mean request: a
    /// running sequence's whole output averages `osl * (1 + cv^2)` tokens
    /// (length-biased sampling), which is what its KV cache and attention see.
    #[serde(default)]
    pub output_cv: f64,
    /// Open-loop arrivals: requests per second arriving at random (Poisson), as MLPerf's
    /// Server scenario sends them (`disagg::open_loop::at_rate`); `None`: a closed loop
    /// of a fixed concurrency, the batch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<f64>,
    /// Prompts a closed-loop benchmark sends in all (its `--num-prompts`): the first
    /// `concurrency` of them arrive together, and their TTFT is a cohort's
    /// (`audit/MODEL.md` 6.1.2); `None`: the steady loop only, as if it ran forever.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts: Option<u32>,
    /// The same for a sweep over concurrencies: prompts the benchmark sends per user,
    /// so `ceil(m C)` in all at `C` users ([`Workload::prompts_at`]), as harnesses that
    /// scale `--num-prompts` with `--max-concurrency` do (InferenceMAX sends ten per
    /// user). Exclusive with `prompts`; `None`: as `prompts` says.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prompts_per_user: Option<f64>,
    /// A run of a fixed number of requests whose figure is read over the whole run, to
    /// the last request's end (MLPerf's Offline scenario): the batch drains at its end
    /// (`disagg::finite_run`, `audit/MODEL.md` 6.1.4); `None`: the steady loop only.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub finite_run: Option<FiniteRun>,
}

/// A run of a fixed number of requests, all of them waiting from its start, whose rate
/// is its tokens over the time to its last request's end (MLPerf Offline: LoadGen
/// issues every sample in one query and times the run to the last completion;
/// trtllm-bench's throughput run: its dataset queued at once, timed from the first
/// request's start to the last one's end).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FiniteRun {
    /// Requests the run holds (an Offline run's samples per query, which its
    /// LoadGen log states; a trtllm-bench dataset's request count).
    pub requests: u32,
    /// Longest output a request may have (the dataset's longest, or the benchmark's
    /// cap): when the last request has been admitted, some running sequence has about
    /// this far to go, and the run lasts until it ends.
    pub longest_output: u32,
}

impl FiniteRun {
    /// The longest output a run of `requests` whose outputs average `osl` tokens can
    /// hold: every token of the run but one for each other request (a request yields at
    /// least one), and no more than [`MAX_LENGTH`].
    pub fn longest_possible(requests: u32, osl: u32) -> u32 {
        let all = requests as u64 * osl as u64;
        let others = (requests as u64).saturating_sub(1);
        all.saturating_sub(others).min(MAX_LENGTH as u64) as u32
    }
}

impl Workload {
    /// A workload without prefix-cache hits.
    pub fn new(isl: u32, osl: u32) -> Workload {
        Workload {
            isl,
            osl,
            cached: 0,
            output_cv: 0.0,
            rate: None,
            prompts: None,
            prompts_per_user: None,
            finite_run: None,
        }
    }

    /// This workload with output lengths spread by `cv` (standard deviation over mean).
    pub fn with_output_cv(self, cv: f64) -> Workload {
        Workload {
            output_cv: cv,
            ..self
        }
    }

    pub fn validate(&self) -> Result<()> {
        if self.isl == 0 || self.osl == 0 {
            return Err(EngineError::InvalidInput(
                "input and output lengths must be at least 1 token".into(),
            ));
        }
        if self.cached >= self.isl {
            return Err(EngineError::InvalidInput(format!(
                "cached prompt tokens ({}) must be fewer than the prompt ({}): prefill computes at least one",
                self.cached, self.isl
            )));
        }
        if !(self.output_cv.is_finite() && (0.0..=MAX_OUTPUT_CV).contains(&self.output_cv)) {
            return Err(EngineError::InvalidInput(format!(
                "output-length spread {} must be a coefficient of variation from 0 to {MAX_OUTPUT_CV}",
                self.output_cv
            )));
        }
        if let Some(r) = self.rate {
            check_request_rate(r)?;
        }
        if let Some(n) = self.prompts.filter(|n| !(1..=MAX_PROMPTS).contains(n)) {
            return Err(EngineError::InvalidInput(format!(
                "prompts {n} must lie between 1 and {MAX_PROMPTS}"
            )));
        }
        if let Some(m) = self
            .prompts_per_user
            .filter(|m| !(m.is_finite() && PROMPTS_PER_USER.contains(m)))
        {
            return Err(EngineError::InvalidInput(format!(
                "prompts per user {} must lie between {} and {}",
                crate::error::echoed(m),
                PROMPTS_PER_USER.start(),
                PROMPTS_PER_USER.end()
            )));
        }
        if self.prompts.is_some() && self.prompts_per_user.is_some() {
            return Err(EngineError::InvalidInput(
                "prompts and prompts per user both set: a benchmark states one of them".into(),
            ));
        }
        if let Some(run) = self.finite_run {
            if !(1..=MAX_PROMPTS).contains(&run.requests) {
                return Err(EngineError::InvalidInput(format!(
                    "a finite run's {} requests must lie between 1 and {MAX_PROMPTS}",
                    run.requests
                )));
            }
            let most = FiniteRun::longest_possible(run.requests, self.osl);
            if !(self.osl..=most).contains(&run.longest_output) {
                return Err(EngineError::InvalidInput(format!(
                    "a finite run's longest output ({} tokens) must lie between the mean output ({}) and {most} tokens (its {} requests' outputs add up to {} x the mean, and each other request yields at least one)",
                    run.longest_output, self.osl, run.requests, run.requests
                )));
            }
        }
        for (name, length) in [("input", self.isl), ("output", self.osl)] {
            if length > MAX_LENGTH {
                return Err(EngineError::InvalidInput(format!(
                    "{name} length {length} exceeds {MAX_LENGTH} tokens"
                )));
            }
        }
        if self.isl as u64 + self.osl as u64 > MAX_CONTEXT {
            return Err(EngineError::InvalidInput(format!(
                "input + output length {} exceeds {MAX_CONTEXT} tokens",
                self.isl as u64 + self.osl as u64
            )));
        }
        Ok(())
    }

    /// Share of the requests in the benchmark's first wave when `running` run at once
    /// ([`crate::disagg::ttft::first_wave_share`]), of the prompts it sends at that
    /// many users ([`Workload::prompts_at`]); 0 for an open loop, whose arrivals never
    /// come together.
    pub fn first_wave(&self, running: u32) -> f64 {
        match self.rate {
            Some(_) => 0.0,
            None => crate::disagg::ttft::first_wave_share(self.prompts_at(running), running),
        }
    }

    /// Prompts the benchmark sends in all at `concurrency` users: `prompts` where
    /// stated, else `ceil(m C)` for `m` prompts per user (at most [`MAX_PROMPTS`]);
    /// `None`: the steady loop only.
    pub fn prompts_at(&self, concurrency: u32) -> Option<u32> {
        self.prompts.or_else(|| {
            self.prompts_per_user.map(|m| {
                (m * concurrency as f64)
                    .ceil()
                    .clamp(1.0, MAX_PROMPTS as f64) as u32
            })
        })
    }

    /// This workload at `concurrency` users, its prompts per user turned into the
    /// prompts it sends in all: a deployment evaluated at fewer running sequences than
    /// users (the rest queue) still sends `m` per user, not per running sequence.
    pub fn at_concurrency(self, concurrency: u32) -> Workload {
        Workload {
            prompts: self.prompts_at(concurrency),
            prompts_per_user: None,
            ..self
        }
    }

    /// The output rate an open loop asks for: `rate × OSL` tokens per second.
    pub fn demand(&self) -> Option<crate::units::TokensPerSecond> {
        self.rate
            .map(|r| crate::units::RequestsPerSecond::new(r).tokens(self.osl as f64))
    }

    /// Prompt plus mean output: the context of the mean request.
    pub fn request_context(&self) -> f64 {
        self.isl as f64 + self.osl as f64
    }

    /// Mean whole output of a running sequence: `osl * (1 + cv^2)`, the mean output
    /// when every request has the same length.
    pub fn running_output(&self) -> f64 {
        self.osl as f64 * (1.0 + self.output_cv * self.output_cv)
    }

    /// Context a running sequence reaches at the end of its generation, which sizes
    /// the KV cache.
    pub fn max_context(&self) -> f64 {
        self.isl as f64 + self.running_output()
    }

    /// Mean context over the decode phase: a running sequence is on average halfway
    /// through its output.
    pub fn mean_decode_context(&self) -> f64 {
        self.isl as f64 + self.running_output() / 2.0
    }

    /// This workload with `share` of each prompt (0 to 1) served from the prefix cache,
    /// rounded to whole tokens and leaving at least one to compute.
    pub fn with_cached_share(self, share: f64) -> Workload {
        let share = if share.is_finite() {
            share.clamp(0.0, 1.0)
        } else {
            0.0
        };
        Workload {
            cached: ((share * self.isl as f64).round() as u32).min(self.isl.saturating_sub(1)),
            ..self
        }
    }

    /// Prompt tokens prefill computes: the prompt less its cached prefix.
    pub fn computed_prompt(&self) -> f64 {
        self.isl.saturating_sub(self.cached).max(1) as f64
    }

    /// One prefill step over `prompts` prompts: the uncached tokens of each, after
    /// the cached prefix.
    pub fn prefill_shape(&self, prompts: f64) -> StepShape {
        let computed = self.computed_prompt();
        StepShape::prefill(prompts, computed, self.isl as f64 - computed)
    }

    /// One decode step of `seqs` sequences per replica on `par`: pipeline stages split
    /// the batch into micro-batches that keep the stages busy, and a token still
    /// crosses every stage, so the step is one full traversal of a micro-batch.
    pub fn decode_shape(&self, par: Parallelism, seqs: f64) -> StepShape {
        let micro_batches = (par.pp as f64).min(seqs).max(1.0);
        StepShape::decode(seqs / micro_batches, self.mean_decode_context())
    }

    /// Prompts one prefill step takes: the chunk budget's worth of computed tokens,
    /// at least one, at most `limit`.
    pub fn prompts_per_chunk(&self, chunk_tokens: f64, limit: f64) -> f64 {
        (chunk_tokens / self.computed_prompt())
            .floor()
            .clamp(1.0, limit.max(1.0))
    }
}

/// Refuses a request rate outside [`REQUEST_RATE`] (NaN and infinity included), echoing
/// it as given: the one check of a workload's, an open loop's and a demand's rate.
pub fn check_request_rate(r: f64) -> crate::error::Result<()> {
    if r.is_finite() && REQUEST_RATE.contains(&r) {
        return Ok(());
    }
    Err(EngineError::InvalidInput(format!(
        "request rate {} must lie between {} and {} requests per second",
        crate::error::echoed(r),
        REQUEST_RATE.start(),
        REQUEST_RATE.end()
    )))
}
