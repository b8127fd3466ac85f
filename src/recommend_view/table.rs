//! What the recommend view's table and lines read: one row per ranked deployment, the
//! minimum hardware, the chip kinds left out with why, and a summary of the search.

use crate::format::{count, duration, sig3, usd_per_mtok};
use disagg_engine::recommend::{Entry, Load, Recommendation};
use disagg_engine::sweep::Slo;
use disagg_engine::validation::{band_line, band_median, LatencyBands, ValidationReport};
use disagg_engine::Catalogue;

/// One ranked deployment as the table shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub rank: usize,
    /// The axis' id: agg, pd, af, spec.
    pub axis: &'static str,
    /// One replica: "4x H100 SXM TP4".
    pub deployment: String,
    pub replicas: String,
    pub chips: String,
    pub usd_per_mtok: String,
    pub ttft: String,
    /// The median error of published points like it, "±19%" ("-" while the validation
    /// report is not in, or with no points at all); the same for TPOT below.
    pub ttft_band: String,
    pub tpot: String,
    pub tpot_band: String,
    /// Each replica's load: "2.5 req/s" or "16 users".
    pub load: String,
    /// TTFT and TPOT in milliseconds, for checking against the limits (as shown).
    pub ttft_ms: f64,
    pub tpot_ms: f64,
}

fn load(e: &Entry) -> String {
    match e.load {
        Load::Rate(r) => format!("{} req/s", sig3(r.value())),
        Load::Concurrency(b) => format!("{} users", count(b as u64)),
    }
}

fn bands(e: &Entry, report: Option<&ValidationReport>) -> LatencyBands {
    report.map_or(LatencyBands::default(), |r| {
        e.latency_bands(r, Catalogue::builtin())
    })
}

/// `e`'s TTFT and TPOT as the limits bound them (mean or p90), each with its band.
fn row(rank: usize, e: &Entry, slo: &Slo, report: Option<&ValidationReport>) -> Row {
    let (ttft, tpot) = (slo.ttft_of(&e.figures), slo.tpot_of(&e.figures));
    let b = bands(e, report);
    Row {
        rank,
        axis: e.spec.axis.id(),
        deployment: e.label.clone(),
        replicas: count(e.replicas as u64),
        chips: count(e.total_chips as u64),
        usd_per_mtok: usd_per_mtok(e.figures.ranked_usd_per_mtok_output()),
        ttft: duration(ttft),
        ttft_band: band_median(b.ttft.as_ref()),
        tpot: duration(tpot),
        tpot_band: band_median(b.tpot.as_ref()),
        load: load(e),
        ttft_ms: ttft.ms(),
        tpot_ms: tpot.ms(),
    }
}

/// The ranked deployments, cheapest first; their bands once `report` is in.
pub fn rows(r: &Recommendation, report: Option<&ValidationReport>) -> Vec<Row> {
    r.ranked
        .iter()
        .enumerate()
        .map(|(i, e)| row(i + 1, e, &r.slo, report))
        .collect()
}

/// How far off the minimum hardware's TTFT and TPOT may be, a band each in full
/// (`disagg recommend` prints the same two lines); none before `report` is in.
pub fn minimum_bands(r: &Recommendation, report: Option<&ValidationReport>) -> Vec<String> {
    let (Some(m), Some(report)) = (r.minimum(), report) else {
        return Vec::new();
    };
    let b = m.latency_bands(report, Catalogue::builtin());
    [("TTFT", b.ttft), ("TPOT", b.tpot)]
        .into_iter()
        .map(|(name, band)| format!("Error of the {name}: {}", band_line(band.as_ref())))
        .collect()
}

/// The minimum hardware in one sentence.
pub fn minimum_line(r: &Recommendation) -> String {
    match r.minimum() {
        Some(m) => format!(
            "Minimum hardware: {} chips, {} × {} ({}), at {} per Mtok, {} {}, {} {}.",
            count(m.total_chips as u64),
            count(m.replicas as u64),
            m.label,
            m.spec.axis.name(),
            usd_per_mtok(m.figures.usd_per_mtok_output),
            r.slo.at.name("TTFT"),
            duration(r.slo.ttft_of(&m.figures)),
            r.slo.at.name("TPOT"),
            duration(r.slo.tpot_of(&m.figures)),
        ),
        None => format!(
            "No deployment within {} chips meets both limits at this demand.",
            count(r.max_chips as u64)
        ),
    }
}

/// Each chip kind left out: its name, the kind of failure, and why.
pub fn rejected_lines(r: &Recommendation) -> Vec<(String, &'static str, String)> {
    r.rejected
        .iter()
        .map(|f| (f.chip_name.clone(), f.kind.name(), f.reason.clone()))
        .collect()
}

/// What was searched, in one line.
pub fn summary_line(r: &Recommendation) -> String {
    format!(
        "Demand: {}. Searched the {} axes: {} layouts, {} replica counts evaluated, at most {} chips in all.",
        r.demand_read,
        r.axes.iter().map(|a| a.name()).collect::<Vec<_>>().join(", "),
        count(r.candidates),
        count(r.evaluations),
        count(r.max_chips as u64)
    )
}
