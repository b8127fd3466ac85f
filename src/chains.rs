//! Explain chains and operator tables as the detail panel shows them: which chain each
//! figure opens, a chain's numbers in the page's units, where its formula is derived
//! in the site's model document, and an operator table's rows with their bars.

use crate::format::{self, sig3};
use disagg_engine::explain::{Chain, Source};
use disagg_engine::kernel::OperatorTable;
use disagg_engine::units::{Bytes, Seconds};

/// The headline figures the panel lists, each with the chain it opens (by the chain's
/// quantity, as `disagg::explain` names them) where the engine explains it.
pub const FIGURE_CHAINS: [(&str, &str); 11] = [
    ("TTFT", "TTFT"),
    ("TTFT p50 / p90", "p90 TTFT"),
    ("TPOT", "TPOT"),
    ("tok/s per user", "tok/s per user"),
    ("output tok/s per chip", "output tok/s per chip"),
    ("input tok/s per chip", "input tok/s per chip"),
    ("$/Mtok output", "output $/Mtok"),
    ("$/Mtok input", "input $/Mtok"),
    ("J per output token", "energy per output token"),
    ("memory per chip (fullest)", "memory per chip"),
    ("max batch (memory)", "max batch"),
];

/// The cost figures that open a chain where the point has them: energy per token of
/// either kind, ownership (with a purchase price) and the API break-even (for a model
/// the API price table lists).
pub const COST_FIGURE_CHAINS: [(&str, &str); 5] = [
    ("J per token (input and output)", "energy per token"),
    ("$/Mtok output, owned", "ownership output $/Mtok"),
    ("$/Mtok input, owned", "ownership input $/Mtok"),
    (
        "break-even vs API (tokens/month)",
        "break-even volume against the API",
    ),
    (
        "deployments to reach it",
        "deployments to carry the break-even volume",
    ),
];

/// The spread figures that open a chain where requests differ: TPOT's p90 exists where
/// other prompts' prefills interrupt generation (not in a decode pool, a static batch
/// or for one sequence alone).
pub const SPREAD_FIGURE_CHAINS: [(&str, &str); 1] = [("TPOT p50 / p90", "p90 TPOT")];

/// The chain a figure opens, if the engine explains it for this point (a chip without
/// a price has no $/Mtok chain).
pub fn chain_for<'a>(chains: &'a [Chain], figure: &str) -> Option<&'a Chain> {
    let quantity = FIGURE_CHAINS
        .iter()
        .chain(&crate::open_loop::FIGURE_CHAINS)
        .chain(&COST_FIGURE_CHAINS)
        .chain(&SPREAD_FIGURE_CHAINS)
        .find(|(f, _)| *f == figure)?
        .1;
    by_quantity(chains, quantity)
}

/// The first chain whose quantity starts with `quantity` (the engine words some
/// quantities on, as "TPOT, the time per output token after the first: ...").
pub fn by_quantity<'a>(chains: &'a [Chain], quantity: &str) -> Option<&'a Chain> {
    chains.iter().find(|c| c.quantity.starts_with(quantity))
}

/// A chain's number in the page's units.
pub fn value(v: f64, unit: &str) -> String {
    match unit {
        "s" => format::duration(Seconds::new(v)),
        "B" => format::bytes(Bytes::new(v)),
        "B/s" => format!("{}/s", format::bytes(Bytes::new(v))),
        "USD/Mtok" => format!("${}/Mtok", sig3(v)),
        "USD/h" => format!("${}/h", sig3(v)),
        "1" => sig3(v),
        "tok/s" | "requests/s" | "W" | "J/token" => format::with_unit(v, unit),
        other => format::with_unit(v, other),
    }
}

/// The site's page of the model document at the section that derives a formula.
pub fn section_link(section: &str) -> String {
    format!("docs/model.html#section-{}", section.replace('.', "-"))
}

/// Where an input comes from, in words, for the panel's source column (a derived
/// input opens its own chain instead).
pub fn source_text(s: &Source) -> String {
    match s {
        Source::Catalogue {
            chip,
            field,
            grade,
            sources,
            note,
        } => {
            let grade = grade.map_or("no grade".to_string(), |g| g.to_string());
            let mut text = format!("catalogue, {chip} {field} ({grade})");
            if !sources.is_empty() {
                text.push_str(&format!(": {}", sources.join("; ")));
            }
            if let Some(n) = note {
                text.push_str(&format!(". {n}"));
            }
            text
        }
        Source::Assumption { name, default } => {
            format!("assumption {name}, default {}", sig3(*default))
        }
        Source::Derived { chain } => format!("derived: {}", chain.quantity),
        other => other.describe(),
    }
}

/// One row of an operator table as the panel shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct OperatorLine {
    pub layers: String,
    pub op: &'static str,
    pub flops: String,
    pub weights: String,
    pub kv: String,
    pub activations: String,
    pub link: String,
    pub intensity: String,
    pub bound: &'static str,
    pub time: String,
    /// The row's share of the step, for its bar (0 to 100).
    pub percent: f64,
}

fn amount(b: Bytes) -> String {
    if b.value() > 0.0 {
        format::bytes(b)
    } else {
        format::MISSING.into()
    }
}

/// The rows of `t` worth a line: those that take time or move something.
pub fn operator_lines(t: &OperatorTable) -> Vec<OperatorLine> {
    t.rows
        .iter()
        .filter(|r| r.time.value() > 0.0)
        .map(|r| OperatorLine {
            layers: r.layers.clone(),
            op: r.op,
            flops: if r.flops.value() > 0.0 {
                format!("{} GFLOP", sig3(r.flops.value() / 1e9))
            } else {
                format::MISSING.into()
            },
            weights: amount(r.weight_bytes),
            kv: amount(r.kv_bytes),
            activations: amount(r.activation_bytes),
            link: amount(r.link_bytes),
            intensity: r.intensity.map_or(format::MISSING.into(), sig3),
            bound: r.bound.name(),
            time: format::duration(r.time),
            percent: if r.share.is_finite() {
                (r.share * 100.0).clamp(0.0, 100.0)
            } else {
                0.0
            },
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::detail;
    use crate::scenario::Scenario;
    use disagg_engine::disagg::Axis;
    use disagg_engine::Catalogue;

    #[test]
    fn values_read_in_the_pages_units() {
        assert_eq!(value(0.0234, "s"), "23.4 ms");
        assert_eq!(value(8.4e10, "B"), "84.0 GB");
        assert_eq!(value(2.5, "USD/Mtok"), "$2.50/Mtok");
        assert_eq!(value(0.75, "1"), "0.750");
        assert_eq!(value(f64::NAN, "s"), format::MISSING);
        assert_eq!(section_link("6.1"), "docs/model.html#section-6-1");
    }

    #[test]
    fn an_aggregated_points_tpot_spread_opens_its_p90_chain() {
        // Prefill and generation on one pool: other prompts' prefills interrupt
        // generation, so the spread has a chain (a decode pool's has none).
        let s = Scenario {
            axis: Axis::Aggregated,
            ..Scenario::default()
        };
        let swept = crate::explore::explore(&s, Catalogue::builtin()).unwrap();
        let p = swept
            .cloud
            .iter()
            .find(|p| p.spec.batch >= 16)
            .expect("a point of 16 users or more");
        let d = detail(&s, &p.spec, Catalogue::builtin()).unwrap();
        let (figure, _) = SPREAD_FIGURE_CHAINS[0];
        let c = chain_for(&d.chains, figure).unwrap_or_else(|| panic!("{figure}"));
        assert_eq!(c.symbol, "TPOT_90");
        assert!(c
            .recompute()
            .is_some_and(|v| (v - c.value).abs() <= 1e-12 * c.value));
        assert_eq!(c.value, d.point.tpot.quantile(0.9).value());
    }

    #[test]
    fn every_figure_of_a_priced_point_opens_its_chain_and_every_table_its_operators() {
        let s = Scenario {
            axis: Axis::PrefillDecode,
            chips: vec!["h200".into(), "mi300x".into()],
            ..Scenario::default()
        };
        let swept = crate::explore::explore(&s, Catalogue::builtin()).unwrap();
        let p = &swept.cloud[swept.cloud.len() / 2];
        let d = detail(&s, &p.spec, Catalogue::builtin()).unwrap();
        for (figure, _) in FIGURE_CHAINS {
            let c = chain_for(&d.chains, figure).unwrap_or_else(|| panic!("{figure}"));
            assert!(c.recompute().is_some(), "{figure}");
        }
        for pool in &d.point.pools {
            assert!(!pool.operators.is_empty(), "{:?}", pool.role);
            for t in &pool.operators {
                let lines = operator_lines(t);
                let total: f64 = lines.iter().map(|l| l.percent).sum();
                assert!((total - 100.0).abs() < 1e-6, "{total}");
            }
        }
    }
}
