//! How far off one prediction may be: the measured error of the model on published
//! **hold-out** points comparable to it (MODEL.md § "Error band of a prediction").
//!
//! "Comparable" means the same chip family, the same disaggregation axis, the same
//! class of metric (throughput, interactivity, TTFT) and the same concurrency regime.
//! When fewer than [`MIN_POINTS`] hold-out points match, the scope widens in one fixed
//! order ([`LEVELS`]) and the band says which scope it used and which narrower ones it
//! had to give up. Calibration points never enter a band: the catalogue's constants may
//! have been fitted to them, so their error says nothing about a new prediction.
//!
//! The band is computed for the one point a user predicts or opens, from a
//! [`ValidationReport`] computed once; it is not meant for each point of a sweep.

use super::{summarize, Metric, Role, ValidationReport, ValidationRow};
use crate::catalogue::Catalogue;
use crate::disagg::{Axis, DeploymentPoint};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// Fewest comparable points a band is given for; fewer, and the scope widens.
pub const MIN_POINTS: usize = 3;

/// The most concurrent sequences (over the whole deployment) of the low-concurrency
/// regime: batch 1 and the small batches of latency-bound serving. Above it, and for
/// a published point run at the largest batch that fits, the regime is high
/// concurrency (throughput-bound serving).
pub const LOW_CONCURRENCY_MAX: f64 = 16.0;

/// What kind of figure a metric is: its error behaves alike within a class.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum MetricClass {
    /// Tokens per second over a deployment, a chip or a pool.
    Throughput,
    /// One user's speed: TPOT, tok/s per user, single-sequence decode speed.
    Interactivity,
    /// Time to the first token, and the prompt speed of one prefill it follows from.
    Ttft,
}

impl MetricClass {
    pub const ALL: [MetricClass; 3] = [
        MetricClass::Throughput,
        MetricClass::Interactivity,
        MetricClass::Ttft,
    ];

    pub fn name(self) -> &'static str {
        match self {
            MetricClass::Throughput => "throughput",
            MetricClass::Interactivity => "TPOT and tok/s per user",
            MetricClass::Ttft => "TTFT",
        }
    }
}

impl Metric {
    /// The class whose published points bound this metric's error.
    pub fn class(self) -> MetricClass {
        match self {
            Metric::TokSUser | Metric::TpotMs | Metric::TpotP50Ms | Metric::DecodeTokS => {
                MetricClass::Interactivity
            }
            // A request's whole latency, measured from its arrival like TTFT.
            Metric::TtftMs | Metric::TtftP50Ms | Metric::PrefillTokS | Metric::E2eMs => {
                MetricClass::Ttft
            }
            Metric::OutputTokS
            | Metric::OutputTokSPerChip
            | Metric::InputTokSPerChip
            | Metric::TotalTokSPerChip
            | Metric::PrefillPoolInputTokSPerChip
            | Metric::DecodePoolOutputTokSPerChip
            | Metric::OutputTokSPerDecodeChip
            | Metric::InputTokSPerPrefillChip
            | Metric::DecodeStepTokSPerChip => MetricClass::Throughput,
        }
    }
}

/// Concurrency regime of a deployment or a published point.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Regime {
    /// At most [`LOW_CONCURRENCY_MAX`] concurrent sequences.
    Low,
    /// More, or the largest batch that fits.
    High,
}

impl Regime {
    /// The regime of `batch` concurrent sequences; `None` (the largest batch that
    /// fits, as a published point without a batch states) is high concurrency.
    pub fn of(batch: Option<f64>) -> Regime {
        match batch {
            Some(b) if b <= LOW_CONCURRENCY_MAX => Regime::Low,
            _ => Regime::High,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Regime::Low => "batch up to 16",
            Regime::High => "batch over 16",
        }
    }
}

/// Chip families: one vendor's chips of one generation and memory system, whose
/// efficiencies the model treats alike. A chip not listed (an accelerator alone in
/// its generation, or a chip of the user's own) is a family of its own.
pub const FAMILIES: [(&str, &[&str]); 9] = [
    ("NVIDIA Ampere", &["a100-80g", "a100-pcie"]),
    ("NVIDIA Ada", &["l40s", "rtx-4090"]),
    (
        "NVIDIA Hopper",
        &["h100-sxm", "h100-pcie", "h200", "h800", "gh200"],
    ),
    (
        "NVIDIA Blackwell data-centre",
        &["b200", "b300", "gb200", "gb300"],
    ),
    (
        "NVIDIA Blackwell workstation",
        &["rtx-5090", "rtx-pro-6000", "dgx-spark"],
    ),
    ("AMD CDNA 3", &["mi300x", "mi325x"]),
    ("AMD CDNA 4", &["mi355x"]),
    (
        "Apple M-series",
        &["m1-max", "m2-ultra", "m3-max", "m3-ultra", "m4-max"],
    ),
    ("Google TPU", &["tpu-v5e", "tpu-v5p", "tpu-v6e", "tpu-v7"]),
];

/// The family of chip `id`: a name from [`FAMILIES`], else the chip's own id.
pub fn family(id: &str) -> String {
    let id = id.trim().to_ascii_lowercase();
    FAMILIES
        .iter()
        .find(|(_, ids)| ids.contains(&id.as_str()))
        .map_or(id, |(name, _)| name.to_string())
}

/// The chips and figure a band is sought for.
#[derive(Clone, Debug, PartialEq)]
pub struct BandQuery {
    /// Catalogue ids of the deployment's chips (every pool's).
    pub chips: Vec<String>,
    pub axis: Axis,
    /// `None`: any metric (a sentence about a whole deployment).
    pub class: Option<MetricClass>,
    /// `None`: any concurrency.
    pub regime: Option<Regime>,
}

/// Which chips a scope takes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ChipScope {
    Family,
    Vendor,
    All,
}

/// One scope: which dimensions of the query it keeps.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Level {
    pub chips: ChipScope,
    pub axis: bool,
    pub class: bool,
    pub regime: bool,
}

const fn level(chips: ChipScope, axis: bool, class: bool, regime: bool) -> Level {
    Level {
        chips,
        axis,
        class,
        regime,
    }
}

/// The scopes in the order they are tried: drop the regime, then widen the family
/// to the vendor, then drop the axis, then the chips, then the metric class.
pub const LEVELS: [Level; 6] = [
    level(ChipScope::Family, true, true, true),
    level(ChipScope::Family, true, true, false),
    level(ChipScope::Vendor, true, true, false),
    level(ChipScope::Vendor, false, true, false),
    level(ChipScope::All, false, true, false),
    level(ChipScope::All, false, false, false),
];

/// The measured error of comparable hold-out points: median and 90th percentile of
/// |error| in percent ([`summarize`]'s rule), over `points` points of `scope`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ErrorBand {
    pub median_pct: f64,
    pub p90_pct: f64,
    pub points: usize,
    /// The scope the points were taken from, in words.
    pub scope: String,
    /// The narrower scopes tried first, each with fewer than [`MIN_POINTS`] points.
    pub widened_from: Vec<String>,
    /// The points of the narrowest of those scopes that had any: too few for a band,
    /// yet the published evidence closest to the prediction, so they are shown by name.
    #[serde(default)]
    pub nearest: Option<NearestPoints>,
}

/// The hold-out points of a scope with some, but fewer than [`MIN_POINTS`], points.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct NearestPoints {
    /// The scope, in words.
    pub scope: String,
    /// Each point's id (`disagg validate --point ID`) and signed error, in table order.
    pub points: Vec<PointError>,
}

/// One published point's signed error: predicted over measured, less one, in percent.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PointError {
    pub id: String,
    pub error_pct: f64,
}

impl PointError {
    /// "+151% (CBR-01)": the signed error, then the id that opens the row.
    pub fn label(&self) -> String {
        format!("{} ({})", signed_pct(self.error_pct), self.id)
    }
}

impl NearestPoints {
    /// "on Cerebras WSE-3 · aggregated · throughput alone, 2 points: +151% (CBR-01),
    /// +747% (CBR-02)": signed, because a chip's few points often lean one way.
    pub fn line(&self) -> String {
        let points: Vec<String> = self.points.iter().map(PointError::label).collect();
        let count = match self.points.len() {
            1 => "1 point".to_string(),
            n => format!("{n} points"),
        };
        format!("on {} alone, {count}: {}", self.scope, points.join(", "))
    }
}

impl ErrorBand {
    /// "±14% median, ±38% p90 on 12 hold-out points: NVIDIA Hopper · aggregated · TTFT":
    /// the one wording of a band, which `disagg predict` prints and the page shows.
    /// Where the scope widened past a few points, they follow by name.
    pub fn line(&self) -> String {
        let band = format!(
            "±{} median, ±{} p90 on {} hold-out points: {}",
            pct(self.median_pct),
            pct(self.p90_pct),
            self.points,
            self.scope
        );
        match &self.nearest {
            Some(n) => format!("{band}; {}", n.line()),
            None => band,
        }
    }

    /// The median alone, "±19%": where a table has room for one number of the band.
    pub fn median(&self) -> String {
        format!("±{}", pct(self.median_pct))
    }
}

/// A band's [`ErrorBand::line`], or what stands in its place where there is none (the
/// table has fewer than [`MIN_POINTS`] hold-out points in all).
pub fn band_line(band: Option<&ErrorBand>) -> String {
    band.map_or(
        "no published hold-out points to compare with".to_string(),
        ErrorBand::line,
    )
}

/// A band's [`ErrorBand::median`] for a table cell, "-" where there is none.
pub fn band_median(band: Option<&ErrorBand>) -> String {
    band.map_or("-".to_string(), ErrorBand::median)
}

/// A signed percentage, as [`pct`] rounds it: "+151%", "-4.2%".
fn signed_pct(v: f64) -> String {
    let sign = if v < 0.0 { "-" } else { "+" };
    format!("{sign}{}", pct(v.abs()))
}

/// A percentage to two significant figures or so: "3.6%", "14%".
fn pct(v: f64) -> String {
    if v < 10.0 {
        format!("{v:.1}%")
    } else {
        format!("{v:.0}%")
    }
}

/// Hold-out mean rows with a finite error: the only rows a band takes (a band sits on the
/// engine's means; [`super::mean_rows`]).
fn holdout(report: &ValidationReport) -> impl Iterator<Item = &ValidationRow> {
    super::mean_rows(&report.rows, Role::Holdout).filter(|r| r.error.is_some_and(f64::is_finite))
}

/// Every chip a published point ran on: its headline chip and its pools'.
fn row_chips(row: &ValidationRow) -> impl Iterator<Item = &str> {
    std::iter::once(row.point.chip.as_str()).chain(row.point.pool.iter().map(|p| p.chip.as_str()))
}

/// Whether a published point ran on chip `id` (in any role, axis or pool).
pub fn runs_on(row: &ValidationRow, id: &str) -> bool {
    row_chips(row).any(|c| c.eq_ignore_ascii_case(id))
}

/// The chips of `chips` that no published point runs on at all.
pub fn unmeasured<'a>(report: &ValidationReport, chips: &'a [String]) -> Vec<&'a str> {
    chips
        .iter()
        .filter(|id| !report.rows.iter().any(|r| runs_on(r, id)))
        .map(String::as_str)
        .collect()
}

/// The concurrency a published point ran at: the batch it was read at, its stated
/// batch, or none (the largest that fits).
fn row_regime(row: &ValidationRow) -> Regime {
    Regime::of(
        row.read_at_batch
            .or(row.point.batch.map(f64::from))
            .filter(|b| b.is_finite()),
    )
}

/// Sorted and deduplicated.
fn set(items: impl Iterator<Item = String>) -> Vec<String> {
    let mut v: Vec<String> = items.collect();
    v.sort();
    v.dedup();
    v
}

/// "A", "A and B", "A, B and C".
pub fn listed(items: &[String]) -> String {
    match items.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

/// The band of `query` over `report`'s hold-out points; `None` when the whole
/// hold-out set has fewer than [`MIN_POINTS`] points.
pub fn error_band(
    report: &ValidationReport,
    catalogue: &Catalogue,
    query: &BandQuery,
) -> Option<ErrorBand> {
    let vendor = |id: &str| catalogue.chip(id).ok().map(|c| c.vendor.clone());
    let families = set(query.chips.iter().map(|c| family(c)));
    let vendors = set(query.chips.iter().filter_map(|c| vendor(c)));
    let family_names: Vec<String> = families
        .iter()
        .map(|f| match catalogue.chip(f) {
            // A family of one chip is named by the chip.
            Ok(c) => c.name.clone(),
            Err(_) => f.clone(),
        })
        .collect();
    let takes = |l: &Level, row: &ValidationRow| {
        let chips = match l.chips {
            ChipScope::Family => row_chips(row).any(|c| families.contains(&family(c))),
            ChipScope::Vendor => {
                row_chips(row).any(|c| vendor(c).is_some_and(|v| vendors.contains(&v)))
            }
            ChipScope::All => true,
        };
        let axis = !l.axis || row.point.axis.unwrap_or(Axis::Aggregated) == query.axis;
        let class = match (l.class, query.class) {
            (true, Some(c)) => row.point.metric.class() == c,
            _ => true,
        };
        let regime = match (l.regime, query.regime) {
            (true, Some(r)) => row_regime(row) == r,
            _ => true,
        };
        chips && axis && class && regime
    };
    let describe = |l: &Level| {
        let mut parts = vec![match l.chips {
            ChipScope::Family => listed(&family_names),
            ChipScope::Vendor => format!("{} chips", listed(&vendors)),
            ChipScope::All => "all chips".to_string(),
        }];
        parts.push(if l.axis {
            query.axis.name().to_string()
        } else {
            "any axis".to_string()
        });
        // A dimension the query leaves open is not named.
        match (l.class, query.class) {
            (true, Some(c)) => parts.push(c.name().to_string()),
            (false, Some(_)) => parts.push("any metric".to_string()),
            (_, None) => {}
        }
        if let (true, Some(r)) = (l.regime, query.regime) {
            parts.push(r.name().to_string());
        }
        parts.join(" · ")
    };
    let mut tried: Vec<String> = Vec::new();
    let mut nearest: Option<NearestPoints> = None;
    for l in &LEVELS {
        // Chips the catalogue does not know have no vendor to widen to.
        if l.chips == ChipScope::Vendor && vendors.is_empty() {
            continue;
        }
        let scope = describe(l);
        // A level that keeps a dimension the query leaves open is the level below it.
        if tried.last() == Some(&scope) {
            continue;
        }
        let rows: Vec<&ValidationRow> = holdout(report).filter(|r| takes(l, r)).collect();
        if rows.len() >= MIN_POINTS {
            let s = summarize(rows.iter().filter_map(|r| r.error))?;
            return Some(ErrorBand {
                median_pct: s.median_ape * 100.0,
                p90_pct: s.p90_ape * 100.0,
                points: s.points,
                scope,
                widened_from: tried,
                nearest,
            });
        }
        if nearest.is_none() && !rows.is_empty() {
            nearest = Some(NearestPoints {
                scope: scope.clone(),
                points: rows
                    .iter()
                    .filter_map(|r| {
                        Some(PointError {
                            id: r.point.id.clone(),
                            error_pct: r.error? * 100.0,
                        })
                    })
                    .collect(),
            });
        }
        tried.push(scope);
    }
    None
}

/// The headline figures of a point that carry a band (their JSON keys) and their
/// metric classes. The pool figures exist only on axes that have such pools.
pub const HEADLINE_FIGURES: [(&str, MetricClass); 8] = [
    ("output_tok_s", MetricClass::Throughput),
    ("output_tok_s_per_chip", MetricClass::Throughput),
    ("input_tok_s_per_chip", MetricClass::Throughput),
    ("output_tok_s_per_decode_chip", MetricClass::Throughput),
    ("input_tok_s_per_prefill_chip", MetricClass::Throughput),
    ("tok_s_user", MetricClass::Interactivity),
    ("tpot_s", MetricClass::Interactivity),
    ("ttft_s", MetricClass::Ttft),
];

/// The band of each metric class for `point`: its chips, axis and concurrency.
pub fn class_bands(
    report: &ValidationReport,
    catalogue: &Catalogue,
    point: &DeploymentPoint,
) -> BTreeMap<MetricClass, Option<ErrorBand>> {
    let chips = point.pools.iter().map(|p| p.chip.as_str());
    bands_of(report, catalogue, chips, point.axis, point.figures.batch)
}

/// The band of each metric class for a deployment of `chips` (every pool's, repeats
/// allowed) on `axis` holding `batch` concurrent requests: [`class_bands`] for what is
/// not yet evaluated into a point, as `recommend`'s ranked replicas.
pub fn bands_of<'a>(
    report: &ValidationReport,
    catalogue: &Catalogue,
    chips: impl Iterator<Item = &'a str>,
    axis: Axis,
    batch: u32,
) -> BTreeMap<MetricClass, Option<ErrorBand>> {
    let chips = set(chips.map(str::to_string));
    let regime = Regime::of(Some(f64::from(batch)));
    MetricClass::ALL
        .into_iter()
        .map(|class| {
            let query = BandQuery {
                chips: chips.clone(),
                axis,
                class: Some(class),
                regime: Some(regime),
            };
            (class, error_band(report, catalogue, &query))
        })
        .collect()
}

/// How sure a deployment's figures are, or a sweep's over its chips: the band of those
/// chips on the axis (any metric, any concurrency), and the one or two points of each
/// chip family whose own band had to widen past them. Asked family by family as well,
/// because a deployment's band counts every family's points together, and a chip with
/// two points far off beside one with forty would otherwise go unseen.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct HowSure {
    pub band: Option<ErrorBand>,
    /// Each family's few points, less any the band or an earlier family already names.
    pub few: Vec<NearestPoints>,
}

impl HowSure {
    pub fn of(
        report: &ValidationReport,
        catalogue: &Catalogue,
        chips: &[String],
        axis: Axis,
    ) -> HowSure {
        let band = error_band(report, catalogue, &deployment_query(chips, axis));
        let mut named: Vec<String> = band
            .iter()
            .filter_map(|b| b.nearest.as_ref())
            .flat_map(|n| n.points.iter().map(|p| p.id.clone()))
            .collect();
        let mut families: Vec<String> = Vec::new();
        let mut few = Vec::new();
        for chip in chips {
            let f = family(chip);
            if families.contains(&f) {
                continue;
            }
            families.push(f);
            let own = deployment_query(std::slice::from_ref(chip), axis);
            let Some(mut n) = error_band(report, catalogue, &own).and_then(|b| b.nearest) else {
                continue;
            };
            n.points.retain(|p| !named.contains(&p.id));
            if !n.points.is_empty() {
                named.extend(n.points.iter().map(|p| p.id.clone()));
                few.push(n);
            }
        }
        HowSure { band, few }
    }

    /// Every few points named, each once: the band's own, then each family's.
    pub fn named(&self) -> impl Iterator<Item = &NearestPoints> {
        self.band
            .iter()
            .filter_map(|b| b.nearest.as_ref())
            .chain(&self.few)
    }
}

fn deployment_query(chips: &[String], axis: Axis) -> BandQuery {
    BandQuery {
        chips: chips.to_vec(),
        axis,
        class: None,
        regime: None,
    }
}

/// The bands of the two figures a latency limit bounds: TTFT's class and TPOT's.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LatencyBands {
    pub ttft: Option<ErrorBand>,
    pub tpot: Option<ErrorBand>,
}

impl LatencyBands {
    /// The two out of [`bands_of`]'s classes.
    pub fn from_classes(mut by_class: BTreeMap<MetricClass, Option<ErrorBand>>) -> Self {
        LatencyBands {
            ttft: by_class.remove(&MetricClass::Ttft).flatten(),
            tpot: by_class.remove(&MetricClass::Interactivity).flatten(),
        }
    }
}

/// The band of each headline figure of `point` (figures of one class share one band),
/// keyed by the figure's JSON key; a figure the point does not have is left out.
pub fn headline_bands(
    report: &ValidationReport,
    catalogue: &Catalogue,
    point: &DeploymentPoint,
) -> BTreeMap<&'static str, Option<ErrorBand>> {
    let by_class = class_bands(report, catalogue, point);
    HEADLINE_FIGURES
        .iter()
        .filter(|(key, _)| match *key {
            "output_tok_s_per_decode_chip" => point.output_tok_s_per_decode_chip().is_some(),
            "input_tok_s_per_prefill_chip" => point.input_tok_s_per_prefill_chip().is_some(),
            _ => true,
        })
        .map(|(key, class)| (*key, by_class[class].clone()))
        .collect()
}

#[cfg(test)]
#[path = "band_tests.rs"]
mod tests;
