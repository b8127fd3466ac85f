//! The axes side by side as the page's table shows them: one row per axis, the best
//! deployment at the target on each measure, and how it compares with the aggregated
//! baseline. Plain logic, tested natively.

use crate::format;
use disagg_engine::disagg::Axis;
use disagg_engine::frontier::Objective;
use disagg_engine::sweep::{AxisBest, SweepPoint};

/// One row of the table, as text.
#[derive(Clone, Debug, PartialEq)]
pub struct AxisRow {
    pub axis: &'static str,
    /// "373 (prefill on H100, decode on H200), +12% vs aggregated", or why the axis
    /// does not apply, or that nothing reaches the target.
    pub throughput: String,
    pub cost: String,
}

/// The rows, in the engine's axis order.
pub fn rows(axes: &[AxisBest]) -> Vec<AxisRow> {
    let baseline = axes.iter().find(|a| a.axis == Axis::Aggregated);
    axes.iter()
        .map(|a| {
            let cell = |o: Objective| match &a.unavailable {
                Some(why) => format!("does not apply: {why}"),
                None => cell(o, a.best(o), baseline.and_then(|b| b.best(o))),
            };
            AxisRow {
                axis: a.axis.name(),
                throughput: cell(Objective::ThroughputPerChip),
                cost: cell(Objective::CostPerMtok),
            }
        })
        .collect()
}

fn cell(o: Objective, best: Option<&SweepPoint>, baseline: Option<&SweepPoint>) -> String {
    let Some(p) = best else {
        return "nothing reaches the target".into();
    };
    let Some(v) = o.value(&p.figures) else {
        return "no price".into();
    };
    let shown = match o {
        Objective::ThroughputPerChip => format::sig3(v),
        Objective::CostPerMtok => format!("${}", format::sig3(v)),
    };
    let gain = baseline
        .and_then(|b| o.value(&b.figures))
        .map(|b| o.advantage(v, b))
        // Under 1% reads as 0% in whole percents, and the model's error is far larger.
        .filter(|g| g.abs() >= 0.01)
        .map(|g| {
            format!(
                ", {} {} than aggregated",
                format::percent(g.abs()),
                match (g > 0.0, o.higher_is_better()) {
                    (true, true) => "more",
                    (true, false) => "cheaper",
                    (false, true) => "less",
                    (false, false) => "dearer",
                }
            )
        })
        .unwrap_or_default();
    format!("{shown} ({}){gain}", p.phrase)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::{compare, explore};
    use crate::scenario::Scenario;
    use disagg_engine::Catalogue;

    #[test]
    fn the_default_scenario_compares_every_axis_at_its_target() {
        let cat = Catalogue::builtin();
        let s = Scenario::default();
        let r = explore(&s, cat).unwrap();
        let axes = compare(&s, cat, r.target_tok_s_user).unwrap();
        let rows = rows(&axes);
        assert_eq!(rows.len(), 4);
        assert_eq!(rows[0].axis, "aggregated");
        // The baseline row names its deployment and no comparison with itself.
        assert!(rows[0].throughput.contains("(all "), "{:?}", rows[0]);
        assert!(!rows[0].throughput.contains("than aggregated"));
        // The axis the page sweeps reads as the page's own sweep does.
        let pd = axes.iter().find(|a| a.axis == s.axis).unwrap();
        let own = r
            .points(&r.throughput.all)
            .find(|p| p.figures.tok_s_user >= r.target_tok_s_user);
        assert_eq!(pd.throughput.as_ref(), own);
        // A dense model says why the expert split does not apply.
        let af = rows.iter().find(|r| r.axis == "attention/expert").unwrap();
        assert!(af.throughput.starts_with("does not apply: "), "{af:?}");
        for row in &rows {
            for text in [&row.throughput, &row.cost] {
                assert!(!text.contains("NaN") && !text.contains("-0"), "{text}");
            }
        }
    }

    #[test]
    fn a_cell_says_more_or_less_than_aggregated_and_hides_ties() {
        let cat = Catalogue::builtin();
        let s = Scenario::default();
        let r = explore(&s, cat).unwrap();
        let p = r.points(&r.throughput.all).next().unwrap();
        let mut better = p.clone();
        better.figures.output_tok_s_per_chip = p.figures.output_tok_s_per_chip * 1.5;
        let o = Objective::ThroughputPerChip;
        assert!(cell(o, Some(&better), Some(p)).ends_with(", 50% more than aggregated"));
        assert!(cell(o, Some(p), Some(&better)).ends_with(", 33% less than aggregated"));
        assert!(!cell(o, Some(p), Some(p)).contains("aggregated"));
        assert_eq!(cell(o, None, Some(p)), "nothing reaches the target");
    }
}
