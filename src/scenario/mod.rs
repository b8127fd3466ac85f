//! The explorer's scenario: every control of the page, and its URL query form.
//!
//! The query is versioned (`v=1`). Reading never fails: a hand-edited or hostile query
//! yields the nearest valid scenario plus one notice per thing that was ignored or
//! clamped, so the page always has something to draw and can say what it changed.

use disagg_engine::assumptions::ExpertExchange;
use disagg_engine::catalogue::{ChipField, USER_MODEL_ID};
use disagg_engine::disagg::{Axis, DeploymentSpec};
use disagg_engine::frontier::Objective;
use disagg_engine::limits::{
    MAX_BATCH, MAX_DRAFT_TOKENS, MAX_LENGTH, MAX_OUTPUT_CV, MAX_PROMPTS, MAX_REDUNDANT_EXPERTS,
    MAX_SWEEP_CHIPS, PROMPTS_PER_USER, REQUEST_RATE,
};
use disagg_engine::serving::{FrameworkChoice, Scheduling};
use disagg_engine::sweep::SloAt;
use disagg_engine::{Catalogue, DType, FiniteRun, ModelPreset, Workload};
use std::collections::BTreeMap;
use std::ops::RangeInclusive;
use std::str::FromStr;

pub const SCHEMA_VERSION: u32 = 1;
pub use disagg_engine::limits::{MAX_PREFIX_HIT_PCT, MAX_SWEEP_CHIP_KINDS as MAX_CHIP_KINDS};
/// Most notices one field of a link produces; the rest are counted in one more.
pub const MAX_NOTICES_PER_FIELD: usize = 5;
/// Longest TTFT or TPOT limit a link may state, in milliseconds (a day).
pub const MAX_LATENCY_MS: f64 = 86_400_000.0;
/// Most notices a whole link produces; the rest are counted in one more.
pub const MAX_NOTICES: usize = 20;

/// What the chart's y axis shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum YAxis {
    TokSPerChip,
    TokSPerUsdHour,
}

impl YAxis {
    /// The frontier objective the axis draws: tok/s per $/hour is the reciprocal of
    /// $/Mtok up to a constant, so it shares the cost frontier.
    pub fn objective(self) -> Objective {
        match self {
            YAxis::TokSPerChip => Objective::ThroughputPerChip,
            YAxis::TokSPerUsdHour => Objective::CostPerMtok,
        }
    }
}

/// What colours the chart's points: their $/Mtok, or the chips they run on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum ColourBy {
    #[default]
    Price,
    Chip,
}

/// The link key of the selected point (an index into the sweep's cloud): part of the
/// link, not of the scenario, since it names a result rather than an input.
pub const POINT_KEY: &str = "point";

#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    pub model: String,
    pub isl: u32,
    pub osl: u32,
    /// Percent of each prompt served from a prefix cache (0 = none).
    pub prefix_hit_pct: f64,
    /// Spread of the output lengths, standard deviation over mean (0 = all `osl`).
    pub output_cv: f64,
    pub weight_dtype: Option<DType>,
    /// The experts', the attention output projections' and the LM head's own weight
    /// dtypes (link keys `ed`, `ao` and `hd`; `None`: the weight dtype).
    pub expert_dtype: Option<DType>,
    pub attn_out_dtype: Option<DType>,
    pub lm_head_dtype: Option<DType>,
    pub kv_dtype: DType,
    pub axis: Axis,
    pub chips: Vec<String>,
    pub max_chips: u32,
    pub target_tok_s_user: Option<f64>,
    /// Service-level limits in milliseconds (link keys `ttft` and `tpot`; `None`: no
    /// limit): the frontiers and the verdict keep to the deployments that meet both.
    pub ttft_ms: Option<f64>,
    pub tpot_ms: Option<f64>,
    /// Whether the limits bound the mean over requests or the 90th percentile (link key
    /// `sloat`, written only for `p90`).
    pub slo_at: SloAt,
    /// Concurrent requests every point runs at (link key `batch`; `None`: batches are
    /// swept).
    pub batch: Option<u32>,
    /// Open-loop arrivals, requests per second (link key `rate`; `None`: a closed loop).
    /// The detail panel answers at this rate (`crate::open_loop`), and the frontiers keep
    /// to the points that carry it.
    pub rate: Option<f64>,
    /// Prompts a closed-loop benchmark sends per user (link key `ppu`; `None`: the
    /// steady loop only): each point's first `batch` prompts arrive together and their
    /// wait for each other's prefill joins the mean TTFT (`audit/MODEL.md` 6.1.2).
    pub prompts_per_user: Option<f64>,
    /// A finite run read to its last request's end, as MLPerf's Offline scenario times
    /// it (`audit/MODEL.md` 6.1.4): its requests (link key `runn`) and the longest output
    /// a request may have (link key `runk`); both or neither (`crate::bundle` refuses
    /// one alone), and the aggregated axis only, as the engine says otherwise.
    pub run_requests: Option<u32>,
    pub run_longest_output: Option<u32>,
    /// `None`: the model's MTP layers, or the EAGLE head of `eagle_layers`.
    pub draft_model: Option<String>,
    /// Draft with an EAGLE head of this many decoder layers (link `draft=eagle`, or
    /// `draft=eagle:2`); `draft_model` is then `None`.
    pub eagle_layers: Option<u32>,
    /// Redundant expert slots of layouts with expert parallelism (link key `re`; 0 is
    /// not written).
    pub redundant_experts: u32,
    pub acceptance: f64,
    pub draft_tokens: u32,
    /// On the prefill/decode axis: the decode pool speculates with the draft settings,
    /// its draft on the decode chips.
    pub speculative_decode: bool,
    /// Attention-DP replicas that share an expert group prefill in the same step
    /// (TensorRT-LLM's balancing) instead of each on its own schedule.
    pub aligned_prefill: bool,
    /// How an expert group exchanges tokens under attention data parallelism (link key
    /// `xchg`; `all_to_all`, the default, is not written).
    pub expert_exchange: ExpertExchange,
    /// The serving framework whose default batch limit and token budget apply (link
    /// key `fw`; `auto`, each chip family's usual one, is not written).
    pub framework: FrameworkChoice,
    /// Continuous refill or static batches (link key `sched`; `continuous` is not
    /// written).
    pub scheduling: Scheduling,
    pub y_axis: YAxis,
    /// Link key `colour` (`price` or `chip`); `price` is not written.
    pub colour_by: ColourBy,
    /// The user's own `config.json` text (link key `cfg`), the model when `model` is
    /// `custom`.
    pub custom_config: Option<String>,
    /// The user's own chip numbers (link keys `chip.<id>.<field>`, in the field's unit:
    /// `chip.h100-sxm.price=1.9`), in place of the catalogue's.
    pub chip_edits: BTreeMap<(String, ChipField), f64>,
    /// Chips of the user's own, by their new id: what each starts from, a catalogue
    /// chip's id (a clone) or `template` (link keys `chip.<id>.from`); their numbers sit
    /// in `chip_edits` like any chip's.
    pub user_chips: BTreeMap<String, String>,
    /// Modelling constants set away from their defaults (link keys `a.<name>`, the
    /// names of the CLI's `--assumptions` file, in its units).
    pub assumptions: BTreeMap<String, f64>,
    /// A catalogued link between pools (link key `link`; `None`: the chips' own).
    pub link: Option<String>,
    pub cost: disagg_engine::cost::CostSettings, // link keys and bounds: `cost.rs`
    /// One deployment drawn beside the sweep's own points, found where the sweep keeps
    /// it (link key `show`, the deployment as JSON): an imported bundle's, an opened
    /// validation row's (`SweepResult::show`).
    pub show: Option<DeploymentSpec>,
    /// Settings a published run states beyond the main controls (link keys
    /// `run_settings::RUN_KEYS`).
    pub run: RunSettings,
}

impl Default for Scenario {
    fn default() -> Scenario {
        Scenario {
            model: "llama-3.3-70b".into(),
            isl: 8192,
            osl: 512,
            prefix_hit_pct: 0.0,
            output_cv: 0.0,
            weight_dtype: None,
            expert_dtype: None,
            attn_out_dtype: None,
            lm_head_dtype: None,
            kv_dtype: DType::Fp8,
            axis: Axis::PrefillDecode,
            chips: ["h100-sxm", "h200", "b200", "mi300x", "mi355x"]
                .map(String::from)
                .to_vec(),
            max_chips: 64,
            target_tok_s_user: None,
            ttft_ms: None,
            batch: None,
            tpot_ms: None,
            slo_at: SloAt::Mean,
            rate: None,
            prompts_per_user: None,
            run_requests: None,
            run_longest_output: None,
            draft_model: Some("llama-3.2-1b".into()),
            eagle_layers: None,
            redundant_experts: 0,
            acceptance: 0.8,
            draft_tokens: 4,
            speculative_decode: false,
            aligned_prefill: false,
            expert_exchange: ExpertExchange::AllToAll,
            framework: FrameworkChoice::Auto,
            scheduling: Scheduling::Continuous,
            y_axis: YAxis::TokSPerChip,
            colour_by: ColourBy::Price,
            custom_config: None,
            chip_edits: BTreeMap::new(),
            user_chips: BTreeMap::new(),
            assumptions: BTreeMap::new(),
            link: None,
            cost: Default::default(),
            show: None,
            run: RunSettings::default(),
        }
    }
}

/// The link keys of the weight formats, in the link's order: `wd` (attention and the
/// rest), `ed` (experts), `ao` (attention output projections), `hd` (LM head and
/// embedding).
const WEIGHT_DTYPE_KEYS: [&str; 4] = ["wd", "ed", "ao", "hd"];

impl Scenario {
    /// The decode pool speculates: asked for, and on the axis that has a decode pool.
    pub fn decode_pool_speculates(&self) -> bool {
        self.axis == Axis::PrefillDecode && self.speculative_decode
    }

    /// The dtype a dtype link key holds: a component's weight dtype (`None`: as the
    /// weights, or the model's usual one for `wd`), or the KV cache's for `kv`.
    pub fn dtype_at(&self, key: &str) -> Option<DType> {
        match key {
            "kv" => Some(self.kv_dtype),
            "ed" => self.expert_dtype,
            "ao" => self.attn_out_dtype,
            "hd" => self.lm_head_dtype,
            _ => self.weight_dtype,
        }
    }

    /// The weight dtype a link key sets: `wd` (attention and the rest), `ed` (experts),
    /// `ao` (attention output projections), `hd` (LM head and embedding).
    fn component_dtype(&mut self, key: &str) -> &mut Option<DType> {
        match key {
            "ed" => &mut self.expert_dtype,
            "ao" => &mut self.attn_out_dtype,
            "hd" => &mut self.lm_head_dtype,
            _ => &mut self.weight_dtype,
        }
    }

    /// Puts back the settings only routed experts read (`ed`, `re`, `adp`, `xchg`) when the
    /// scenario's model resolves and has none, and returns each one reset with the value
    /// it held. The page hides their controls for such a model, so a value kept would
    /// act unseen the moment a model with experts is picked. A model that does not
    /// resolve keeps them: its own notice says why.
    pub fn reset_expert_settings_of_a_dense_model(
        &mut self,
        catalogue: &Catalogue,
    ) -> Vec<(&'static str, String)> {
        match crate::bundle::target(self, catalogue) {
            Ok(m) if !m.ir.is_moe() => {}
            _ => return Vec::new(),
        }
        let mut reset = Vec::new();
        if let Some(d) = self.expert_dtype.take() {
            reset.push(("ed", d.name().to_string()));
        }
        if self.redundant_experts > 0 {
            reset.push(("re", self.redundant_experts.to_string()));
            self.redundant_experts = 0;
        }
        if self.aligned_prefill {
            reset.push(("adp", "1".to_string()));
            self.aligned_prefill = false;
        }
        if !self.expert_exchange.is_all_to_all() {
            reset.push(("xchg", self.expert_exchange.id().to_string()));
            self.expert_exchange = ExpertExchange::AllToAll;
        }
        reset
    }

    /// The finite run both its settings state; `None` while either is empty.
    pub fn finite_run(&self) -> Option<FiniteRun> {
        Some(FiniteRun {
            requests: self.run_requests?,
            longest_output: self.run_longest_output?,
        })
    }

    /// The lengths, their spread and the prefix-cache hit share as the engine's workload.
    pub fn workload(&self) -> Workload {
        self.run.onto_workload(Workload {
            rate: self.rate,
            prompts_per_user: self.prompts_per_user,
            finite_run: self.finite_run(),
            ..Workload::new(self.isl, self.osl)
                .with_cached_share(self.prefix_hit_pct / 100.0)
                .with_output_cv(self.output_cv)
        })
    }

    /// The query string (without `?`) that reproduces this scenario.
    pub fn to_query(&self) -> String {
        let mut q = vec![
            format!("v={SCHEMA_VERSION}"),
            format!("model={}", encode(&self.model)),
            format!("isl={}", self.isl),
            format!("osl={}", self.osl),
            format!("kv={}", self.kv_dtype.name()),
            format!("axis={}", self.axis.id()),
            format!("chips={}", encode(&self.chips.join(","))),
            format!("budget={}", self.max_chips),
            format!("draft={}", encode(&self.draft_value())),
            format!("acc={}", self.acceptance),
            format!("k={}", self.draft_tokens),
            format!(
                "y={}",
                match self.y_axis {
                    YAxis::TokSPerChip => "chip",
                    YAxis::TokSPerUsdHour => "usd",
                }
            ),
        ];
        for key in WEIGHT_DTYPE_KEYS {
            if let Some(d) = self.dtype_at(key) {
                q.push(format!("{key}={}", d.name()));
            }
        }
        if self.speculative_decode {
            q.push("sd=1".into());
        }
        if self.aligned_prefill {
            q.push("adp=1".into());
        }
        if !self.expert_exchange.is_all_to_all() {
            q.push(format!("xchg={}", self.expert_exchange.id()));
        }
        if self.framework != FrameworkChoice::Auto {
            q.push(format!("fw={}", self.framework.id()));
        }
        if self.redundant_experts > 0 {
            q.push(format!("re={}", self.redundant_experts));
        }
        if !self.scheduling.is_continuous() {
            q.push(format!("sched={}", self.scheduling.id()));
        }
        if self.prefix_hit_pct > 0.0 {
            q.push(format!("hit={}", self.prefix_hit_pct));
        }
        if self.output_cv > 0.0 {
            q.push(format!("ocv={}", self.output_cv));
        }
        if let Some(t) = self.target_tok_s_user {
            q.push(format!("target={t}"));
        }
        if let Some(t) = self.ttft_ms {
            q.push(format!("ttft={t}"));
        }
        if let Some(t) = self.tpot_ms {
            q.push(format!("tpot={t}"));
        }
        if !self.slo_at.is_mean() {
            q.push(format!("sloat={}", self.slo_at.id()));
        }
        if let Some(b) = self.batch {
            q.push(format!("batch={b}"));
        }
        if let Some(r) = self.rate {
            q.push(format!("rate={r}"));
        }
        if let Some(m) = self.prompts_per_user {
            q.push(format!("ppu={m}"));
        }
        if let Some(n) = self.run_requests {
            q.push(format!("runn={n}"));
        }
        if let Some(k) = self.run_longest_output {
            q.push(format!("runk={k}"));
        }
        if self.colour_by == ColourBy::Chip {
            q.push("colour=chip".into());
        }
        if let Some(l) = &self.link {
            q.push(format!("link={}", encode(l)));
        }
        for (id, from) in &self.user_chips {
            q.push(format!(
                "{CHIP_EDIT_PREFIX}{}.{USER_CHIP_FROM}={}",
                encode(id),
                encode(from)
            ));
        }
        for ((id, field), v) in &self.chip_edits {
            q.push(format!(
                "{CHIP_EDIT_PREFIX}{}.{}={v}",
                encode(id),
                field.id()
            ));
        }
        for (name, v) in &self.assumptions {
            q.push(format!("{ASSUMPTION_PREFIX}{name}={v}"));
        }
        q.extend(self.cost_query());
        q.extend(self.run_query());
        if let Some(spec) = &self.show {
            q.push(format!("{SHOW_KEY}={}", encode(&show_value(spec))));
        }
        // Last, being the longest: the user's config, when it is the model.
        if let (true, Some(cfg)) = (self.model == USER_MODEL_ID, &self.custom_config) {
            q.push(format!("cfg={}", encode(cfg)));
        }
        q.join("&")
    }

    /// Reads a query (with or without `?`) against the catalogue: the nearest valid
    /// scenario and the notices of what was ignored or changed.
    pub fn from_query(query: &str, catalogue: &Catalogue) -> (Scenario, Vec<String>) {
        let mut s = Scenario::default();
        let mut notices = Vec::new();
        let query = query.trim_start_matches('?');
        if query.is_empty() {
            return (s, notices);
        }
        let mut seen_version = false;
        // A user chip is defined, then given its numbers, before the pool names it,
        // wherever the link puts them.
        let rank = |p: &&str| {
            let key = decode(p.split_once('=').map_or(*p, |(k, _)| k));
            match key.strip_prefix(CHIP_EDIT_PREFIX) {
                Some(rest) if rest.ends_with(&format!(".{USER_CHIP_FROM}")) => 0,
                Some(_) => 1,
                None => 2,
            }
        };
        let mut ordered: Vec<&str> = query.split('&').filter(|p| !p.is_empty()).collect();
        ordered.sort_by_cached_key(rank);
        for pair in ordered {
            let (key, raw) = pair.split_once('=').unwrap_or((pair, ""));
            let key = decode(key);
            let value = decode(raw);
            if key == "v" {
                seen_version = true;
                if value != SCHEMA_VERSION.to_string() {
                    notices.push(format!(
                        "ignored v={:?}: unknown link version; read as version 1",
                        shorten(&value)
                    ));
                }
                continue;
            }
            if key == POINT_KEY {
                // Read by [`selected_point`].
                continue;
            }
            match s.apply(&key, &value, catalogue) {
                Ok(warnings) => notices.extend(warnings),
                Err(why) => notices.push(format!(
                    "ignored {}={:?}: {why}",
                    shorten(&key),
                    shorten(&value)
                )),
            }
        }
        // Read once the whole link is: `ed` may come before or after the model.
        for (key, value) in s.reset_expert_settings_of_a_dense_model(catalogue) {
            notices.push(format!(
                "ignored {key}={value}: the model has no routed experts"
            ));
        }
        if !seen_version {
            notices.push("the link has no version; read as version 1".into());
        }
        // A hostile link may carry a million fields: a page of notices, then a count.
        if notices.len() > MAX_NOTICES {
            let more = notices.len() - MAX_NOTICES;
            notices.truncate(MAX_NOTICES);
            notices.push(format!("and {more} more notices"));
        }
        (s, notices)
    }

    /// The `chips` field with chip `id` ticked (`on`) or unticked: what the chip picker
    /// hands to [`Scenario::apply`], so that a toggle passes the one validator. Refuses
    /// to empty the pool or pass the page's limit of chip kinds, saying why.
    pub fn chips_toggled(&self, id: &str, on: bool) -> Result<String, String> {
        let has = self.chips.iter().any(|c| c == id);
        if on && !has && self.chips.len() >= MAX_CHIP_KINDS {
            return Err(format!(
                "at most {MAX_CHIP_KINDS} chip kinds at once; untick one first"
            ));
        }
        if !on && has && self.chips.len() == 1 {
            return Err("keep at least one chip in the pool".into());
        }
        let mut chips: Vec<&str> = self.chips.iter().map(String::as_str).collect();
        if on && !has {
            chips.push(id);
        } else if !on {
            chips.retain(|c| *c != id);
        }
        Ok(chips.join(","))
    }
}

/// The page's link: the scenario, and the selected point when there is one.
pub fn link_query(s: &Scenario, point: Option<usize>) -> String {
    match point {
        Some(i) => format!("{}&{POINT_KEY}={i}", s.to_query()),
        None => s.to_query(),
    }
}

/// The point a link selects (`point=N`, an index into the sweep's cloud): `Ok(None)`
/// without one, `Err` naming the key when it is not a count. Whether the sweep has
/// that many points is known only after it runs.
pub fn selected_point(query: &str) -> Result<Option<usize>, String> {
    let value = query
        .trim_start_matches('?')
        .split('&')
        .filter_map(|p| p.split_once('='))
        .find(|(k, _)| decode(k) == POINT_KEY)
        .map(|(_, v)| decode(v));
    match value {
        None => Ok(None),
        Some(v) => v.parse::<u32>().map(|n| Some(n as usize)).map_err(|_| {
            format!(
                "ignored {POINT_KEY}={:?}: a point is a whole number from 0",
                shorten(&v)
            )
        }),
    }
}

/// At most 40 characters of user text, for notices.
fn shorten(s: &str) -> String {
    s.chars().take(40).collect()
}

mod apply;
use apply::parse_in;
mod assumptions;
pub(crate) mod cost;
mod draft;
mod encoding;
mod link;
mod run_settings;
mod show;
mod user_chips;
pub use assumptions::ASSUMPTION_PREFIX;
pub(crate) use encoding::{decode, encode};
pub use run_settings::{RunSettings, RUN_KEYS};
use show::show_value;
pub use show::SHOW_KEY;
pub use user_chips::{CHIP_EDIT_PREFIX, USER_CHIP_FROM};

#[cfg(test)]
mod limits_tests;
#[cfg(test)]
mod precision_tests;
#[cfg(test)]
mod run_tests;
#[cfg(test)]
pub(crate) mod tests;
#[cfg(test)]
mod user_chips_tests;
