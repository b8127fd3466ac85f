//! What the recommend view's table and lines read: one row per ranked deployment, the
//! minimum hardware, the chip kinds left out with why, and a summary of the search.

use crate::format::{count, duration, sig3, usd_per_mtok};
use disagg_engine::recommend::{Entry, Load, Recommendation};
use disagg_engine::sweep::Slo;

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
    pub tpot: String,
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

/// `e`'s TTFT and TPOT as the limits bound them (mean or p90).
fn row(rank: usize, e: &Entry, slo: &Slo) -> Row {
    let (ttft, tpot) = (slo.ttft_of(&e.figures), slo.tpot_of(&e.figures));
    Row {
        rank,
        axis: e.spec.axis.id(),
        deployment: e.label.clone(),
        replicas: count(e.replicas as u64),
        chips: count(e.total_chips as u64),
        usd_per_mtok: usd_per_mtok(e.figures.ranked_usd_per_mtok_output()),
        ttft: duration(ttft),
        tpot: duration(tpot),
        load: load(e),
        ttft_ms: ttft.ms(),
        tpot_ms: tpot.ms(),
    }
}

/// The ranked deployments, cheapest first.
pub fn rows(r: &Recommendation) -> Vec<Row> {
    r.ranked
        .iter()
        .enumerate()
        .map(|(i, e)| row(i + 1, e, &r.slo))
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
