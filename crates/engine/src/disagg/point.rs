//! The one point shape every axis produces: [`Figures`] (the numbers a frontier
//! needs) inside a [`DeploymentPoint`] (those numbers plus a report per pool, which
//! keeps the pool's step costs).

use super::tpot::Tpot;
use super::ttft::Ttft;
use super::{Axis, Limiter, PoolRole};
use crate::catalogue::Chip;
use crate::cost::{self, CostBasis, CostSettings, Money, PoolLoad, Power};
use crate::kernel::{Bottleneck, OperatorTable, StepCost, TimeBreakdown};
use crate::memory::MemoryUsage;
use crate::parallel::Parallelism;
use crate::units::{Joules, Seconds, TokensPerSecond, UsdPerHour, UsdPerMtok, Watts};
use serde::{Deserialize, Serialize};

/// The numbers a frontier is drawn from; the same for every axis.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Figures {
    /// Concurrent requests over the deployment (queued ones included).
    pub batch: u32,
    /// Sequences the engine runs at once: `batch`, or the engine's batch limit when
    /// `batch` exceeds it and the rest queue.
    pub running: u32,
    /// All chips of all pools.
    pub chips: u32,
    #[serde(rename = "ttft_s")]
    pub ttft: Seconds,
    /// Mean time between a user's tokens (accepted tokens, with speculation).
    #[serde(rename = "tpot_s")]
    pub tpot: Seconds,
    /// TTFT and TPOT of the request at the 0.9 quantile (`DeploymentPoint::ttft`,
    /// `DeploymentPoint::tpot`), for limits set on the 90th percentile.
    #[serde(default, rename = "ttft_p90_s")]
    pub ttft_p90: Seconds,
    #[serde(default, rename = "tpot_p90_s")]
    pub tpot_p90: Seconds,
    /// One user's token rate, `1 / TPOT`.
    pub tok_s_user: TokensPerSecond,
    pub output_tok_s: TokensPerSecond,
    pub input_tok_s: TokensPerSecond,
    /// Output tokens per second over all chips of both pools.
    pub output_tok_s_per_chip: TokensPerSecond,
    pub input_tok_s_per_chip: TokensPerSecond,
    /// The chips of every pool, where each has a public price.
    pub usd_per_hour: Option<UsdPerHour>,
    pub usd_per_mtok_output: Option<UsdPerMtok>,
    pub usd_per_mtok_input: Option<UsdPerMtok>,
    /// Per million tokens of either kind.
    pub usd_per_mtok_blended: Option<UsdPerMtok>,
    /// Output tokens per second per dollar-per-hour of chips (a ratio of the two).
    pub output_tok_s_per_usd_hour: Option<f64>,
    /// Owning the chips instead (`cost::ownership_usd_per_hour`), per hour in use,
    /// where every chip has a purchase price and a TDP.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub own_usd_per_hour: Option<UsdPerHour>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub own_usd_per_mtok_output: Option<UsdPerMtok>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub own_usd_per_mtok_input: Option<UsdPerMtok>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub own_usd_per_mtok_blended: Option<UsdPerMtok>,
    /// Which of the two the $/Mtok frontier ranks by.
    #[serde(default)]
    pub cost_basis: CostBasis,
    /// All chips at their utilisation: idle power plus the busy share of the range up
    /// to TDP (`audit/MODEL.md` section 6.6.1).
    pub watts: Option<Watts>,
    /// Energy per output token at that power.
    pub joules_per_output_token: Option<Joules>,
    /// Energy per token of either kind (input and output together).
    #[serde(default)]
    pub joules_per_token: Option<Joules>,
    /// Time on the inter-pool link a request or step waits for (exposed part).
    #[serde(rename = "transfer_s")]
    pub transfer: Seconds,
    /// What limits the decode step of the pool that generates tokens.
    pub bottleneck: Bottleneck,
    pub limiter: Limiter,
    /// Share of the token-generating chips' time spent on prefill (0 when prefill runs
    /// elsewhere).
    pub prefill_share: f64,
}

/// The per-axis part of [`Figures`] before chips, money and energy are applied.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Core {
    pub batch: u32,
    pub running: u32,
    pub ttft: Seconds,
    pub tpot: Seconds,
    pub ttft_p90: Seconds,
    pub tpot_p90: Seconds,
    pub output_tok_s: TokensPerSecond,
    pub input_tok_s: TokensPerSecond,
    pub transfer: Seconds,
    pub bottleneck: Bottleneck,
    pub limiter: Limiter,
    pub prefill_share: f64,
}

impl Figures {
    /// One request from its arrival to its last of `osl` tokens: the first token at
    /// TTFT, each later one a TPOT after the one before, `TTFT + (OSL - 1) * TPOT`
    /// (`audit/MODEL.md` 6.3.2); what a single-request run's total time measures.
    pub fn request_latency(&self, osl: f64) -> Seconds {
        self.ttft + self.tpot * (osl - 1.0).max(0.0)
    }

    /// Applies chip counts, prices and power of `pools` to an axis' core figures.
    pub(crate) fn new(core: Core, pools: &[PoolLoad], settings: &CostSettings) -> Figures {
        let chips: u32 = pools.iter().map(|p| p.chips).sum();
        let usd_per_hour = pools
            .iter()
            .map(|p| p.chip.price.map(|c| c.0 * p.chips as f64))
            .sum::<Option<f64>>()
            .map(UsdPerHour);
        let output = core.output_tok_s;
        let rental = usd_per_hour.map(|p| Money::of(p, core.input_tok_s, output));
        let n = chips.max(1) as f64;
        Figures {
            batch: core.batch,
            running: core.running,
            chips,
            ttft: core.ttft,
            tpot: core.tpot,
            ttft_p90: core.ttft_p90,
            tpot_p90: core.tpot_p90,
            tok_s_user: if core.tpot.0 > 0.0 {
                TokensPerSecond::over(1.0, core.tpot)
            } else {
                TokensPerSecond::ZERO
            },
            output_tok_s: output,
            input_tok_s: core.input_tok_s,
            output_tok_s_per_chip: output / n,
            input_tok_s_per_chip: core.input_tok_s / n,
            usd_per_hour,
            usd_per_mtok_output: rental.and_then(|m| m.per_mtok_output),
            usd_per_mtok_input: rental.and_then(|m| m.per_mtok_input),
            usd_per_mtok_blended: rental.and_then(|m| m.per_mtok_blended),
            output_tok_s_per_usd_hour: usd_per_hour
                .and_then(|p| (p.0 > 0.0).then(|| output.0 / p.0)),
            own_usd_per_hour: None,
            own_usd_per_mtok_output: None,
            own_usd_per_mtok_input: None,
            own_usd_per_mtok_blended: None,
            cost_basis: settings.basis,
            watts: None,
            joules_per_output_token: None,
            joules_per_token: None,
            transfer: core.transfer,
            bottleneck: core.bottleneck,
            limiter: core.limiter,
            prefill_share: core.prefill_share,
        }
        .with_power(pools, settings)
    }

    /// These figures with the power of `pools` at their utilisations, and what follows
    /// from it at these token rates: energy per token and owning the chips
    /// (`audit/MODEL.md` 6.6.1 and 6.6.2). An open loop calls it again once its pools'
    /// busy shares have fallen with the arrivals.
    pub(crate) fn with_power(self, pools: &[PoolLoad], settings: &CostSettings) -> Figures {
        let power = Power::of(pools, settings.idle_share);
        let watts = power.map(|p| p.busy);
        let (input, output) = (self.input_tok_s, self.output_tok_s);
        let own = cost::capex(pools, settings)
            .and_then(|k| cost::ownership_usd_per_hour(k, power, settings))
            .map(|p| Money::of(p, input, output));
        let per_token =
            |rate: TokensPerSecond| watts.and_then(|w| (rate.0 > 0.0).then(|| w / rate));
        Figures {
            own_usd_per_hour: own.map(|m| m.usd_per_hour),
            own_usd_per_mtok_output: own.and_then(|m| m.per_mtok_output),
            own_usd_per_mtok_input: own.and_then(|m| m.per_mtok_input),
            own_usd_per_mtok_blended: own.and_then(|m| m.per_mtok_blended),
            watts,
            joules_per_output_token: per_token(output),
            joules_per_token: per_token(input + output),
            ..self
        }
    }

    /// These figures when the deployment delivers `share` of what it could at its
    /// batch (an open loop's arrivals, fewer than its capacity): every token rate, the
    /// prefill share and the money and energy per token follow; the latencies stay.
    pub fn delivering(self, share: f64) -> Figures {
        let per_token = |x: Option<UsdPerMtok>| x.map(|v| UsdPerMtok(v.0 / share));
        Figures {
            output_tok_s: self.output_tok_s * share,
            input_tok_s: self.input_tok_s * share,
            output_tok_s_per_chip: self.output_tok_s_per_chip * share,
            input_tok_s_per_chip: self.input_tok_s_per_chip * share,
            usd_per_mtok_output: per_token(self.usd_per_mtok_output),
            usd_per_mtok_input: per_token(self.usd_per_mtok_input),
            usd_per_mtok_blended: per_token(self.usd_per_mtok_blended),
            own_usd_per_mtok_output: per_token(self.own_usd_per_mtok_output),
            own_usd_per_mtok_input: per_token(self.own_usd_per_mtok_input),
            own_usd_per_mtok_blended: per_token(self.own_usd_per_mtok_blended),
            output_tok_s_per_usd_hour: self.output_tok_s_per_usd_hour.map(|v| v * share),
            joules_per_output_token: self.joules_per_output_token.map(|j| Joules(j.0 / share)),
            joules_per_token: self.joules_per_token.map(|j| Joules(j.0 / share)),
            prefill_share: (self.prefill_share * share).clamp(0.0, 1.0),
            ..self
        }
    }

    /// The $/Mtok of output the frontier ranks by: rental or ownership, as the cost
    /// settings chose.
    pub fn ranked_usd_per_mtok_output(&self) -> Option<UsdPerMtok> {
        match self.cost_basis {
            CostBasis::Rental => self.usd_per_mtok_output,
            CostBasis::Ownership => self.own_usd_per_mtok_output,
        }
    }

    /// Output tokens per second per dollar-per-hour in the dollars the frontier ranks
    /// by: the reciprocal, up to a constant, of [`Figures::ranked_usd_per_mtok_output`].
    pub fn ranked_output_tok_s_per_usd_hour(&self) -> Option<f64> {
        match self.cost_basis {
            CostBasis::Rental => self.output_tok_s_per_usd_hour,
            CostBasis::Ownership => self
                .own_usd_per_hour
                .and_then(|p| (p.0 > 0.0).then(|| self.output_tok_s.0 / p.0)),
        }
    }

    /// True when every number is finite (a sweep drops points that are not).
    pub fn is_finite(&self) -> bool {
        [
            self.ttft.0,
            self.tpot.0,
            self.tok_s_user.0,
            self.output_tok_s.0,
            self.input_tok_s.0,
        ]
        .iter()
        .all(|v| v.is_finite())
    }
}

/// One pool of an evaluated deployment, for the detail panel and `--json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PoolReport {
    pub role: PoolRole,
    pub chip: String,
    pub chip_name: String,
    pub chips: u32,
    #[serde(flatten)]
    pub parallelism: Parallelism,
    /// Sequences each replica holds (prefill: prompts per prefill step).
    pub seqs_per_replica: f64,
    /// Most sequences one replica's memory holds (prefill: prompts of one step).
    pub max_seqs_per_replica: u64,
    /// The pool's step time (decode step, prefill step, ...).
    #[serde(rename = "step_s")]
    pub step: Seconds,
    /// Share of the pool's capacity the deployment uses.
    pub utilisation: f64,
    /// Input tokens per second per chip of this pool.
    pub input_tok_s_per_chip: TokensPerSecond,
    /// Output tokens per second per chip of this pool.
    pub output_tok_s_per_chip: TokensPerSecond,
    pub memory: MemoryUsage,
    /// Where `step` goes.
    #[serde(rename = "step_time_s")]
    pub time: TimeBreakdown,
    pub bottleneck: Bottleneck,
    /// The step costs behind the figures, operator by operator.
    #[serde(skip)]
    pub costs: StepCosts,
    /// The pool's steps as operator tables, where the deployment was explained
    /// ([`super::explain::explain`]); empty otherwise.
    #[serde(skip_deserializing, skip_serializing_if = "Vec::is_empty")]
    pub operators: Vec<OperatorTable>,
}

/// The kernel's costs of the steps a pool runs: its generation step (a decode step, a
/// speculative verify, or its side's share of a split step) and its prefill step,
/// where it runs them.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct StepCosts {
    pub generation: Option<StepCost>,
    pub prefill: Option<StepCost>,
    /// Prompts the prefill step carries.
    pub prompts_per_prefill: f64,
}

/// An evaluated deployment: its figures, pools, fit and the caveats.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DeploymentPoint {
    pub axis: Axis,
    pub heterogeneous: bool,
    /// "4x H100 SXM prefill TP4 + 8x MI300X decode TP8", for legends and callouts.
    pub label: String,
    #[serde(flatten)]
    pub figures: Figures,
    pub pools: Vec<PoolReport>,
    /// Time one request's KV (or one step's hidden states) spends on the link.
    #[serde(rename = "transfer_time_s")]
    pub transfer_time: Seconds,
    /// TTFT split into its parts, with its p50 and p90 over requests; its mean is
    /// `figures.ttft`.
    pub ttft: Ttft,
    /// TPOT with its p50 and p90 over requests; its mean is `figures.tpot`.
    #[serde(default)]
    pub tpot: Tpot,
    pub fits: bool,
    pub reason: Option<String>,
    pub warnings: Vec<String>,
}

/// "8x H200 TP8" style description of a pool.
pub fn pool_label(role: PoolRole, chip: &Chip, par: Parallelism) -> String {
    let mut layout = Vec::new();
    if par.tp > 1 {
        layout.push(format!("TP{}", par.tp));
    }
    if par.pp > 1 {
        layout.push(format!("PP{}", par.pp));
    }
    if par.ep > 1 {
        layout.push(format!("EP{}", par.ep));
    }
    if par.dp > 1 {
        layout.push(format!("DP{}", par.dp));
    }
    let layout = if layout.is_empty() {
        String::new()
    } else {
        format!(" {}", layout.join("/"))
    };
    let role = match role {
        PoolRole::Colocated => String::new(),
        r => format!(" {}", r.name()),
    };
    format!("{}x {}{role}{layout}", par.chips(), chip.name)
}

impl DeploymentPoint {
    /// The pool that holds the sequences while they generate: the colocated pool, the
    /// decode pool, the attention pool or the speculating target.
    pub fn generating_pool(&self) -> Option<&PoolReport> {
        self.pool(self.axis.generating_role())
    }

    /// The pool with `role`, if the deployment has one.
    pub fn pool(&self, role: PoolRole) -> Option<&PoolReport> {
        self.pools.iter().find(|p| p.role == role)
    }

    /// Output tokens per second per chip of the decode pool, as delivered (its chips
    /// only), where the deployment has a decode pool (prefill/decode).
    pub fn output_tok_s_per_decode_chip(&self) -> Option<TokensPerSecond> {
        self.pool(PoolRole::Decode).map(|x| x.output_tok_s_per_chip)
    }

    /// Input tokens per second per chip of the prefill pool, as delivered (its chips
    /// only), where the deployment has a prefill pool (prefill/decode).
    pub fn input_tok_s_per_prefill_chip(&self) -> Option<TokensPerSecond> {
        self.pool(PoolRole::Prefill).map(|x| x.input_tok_s_per_chip)
    }

    /// The largest concurrency the generating pool's memory holds; over a pipeline's
    /// stages (each a pool of the generating role), the smallest.
    pub fn max_batch(&self) -> u64 {
        let role = self.axis.generating_role();
        self.pools
            .iter()
            .filter(|p| p.role == role)
            .map(|g| {
                g.max_seqs_per_replica
                    .saturating_mul(g.parallelism.dp as u64)
            })
            .min()
            .unwrap_or(0)
    }
}
