//! How sure a figure is: the engine's measured error on published points like it
//! (`disagg validate`'s hold-out points: never used to fit a constant), said beside the
//! verdict and in the details. "Like it" means run on the same chip and on the same
//! axis; when no such point exists the sentence says so and widens to the chip's vendor,
//! then to every hold-out point. A chip that no published point runs on at all is named
//! as such ("no published point for this chip").

use crate::format::percent;
use disagg_engine::disagg::Axis;
use disagg_engine::validation::{summarize, Role, ValidationReport, ValidationRow};
use disagg_engine::Catalogue;

/// Fewest comparable points a summary is given for; fewer, and the scope widens.
pub const MIN_POINTS: usize = 3;

fn on_axis(row: &ValidationRow, axis: Axis) -> bool {
    row.point.axis.unwrap_or(Axis::Aggregated) == axis
}

fn holdout(report: &ValidationReport) -> impl Iterator<Item = &ValidationRow> {
    report
        .rows
        .iter()
        .filter(|r| r.point.role == Role::Holdout && r.error.is_some_and(f64::is_finite))
}

/// "A", "A and B", "A, B and C".
fn listed(items: &[String]) -> String {
    let mut items: Vec<&str> = items.iter().map(String::as_str).collect();
    items.dedup();
    match items.split_last() {
        None => String::new(),
        Some((last, [])) => last.to_string(),
        Some((last, rest)) => format!("{} and {last}", rest.join(", ")),
    }
}

/// Which published points a scope takes.
type Scope<'a> = Box<dyn Fn(&ValidationRow) -> bool + 'a>;

/// One sentence: the measured error on hold-out points of these `chips` on `axis`
/// (their vendors', or all, when too few), median and p90 of |error| with the count.
pub fn measured_error(
    report: &ValidationReport,
    chips: &[String],
    axis: Axis,
    catalogue: &Catalogue,
) -> String {
    let names: Vec<String> = chips
        .iter()
        .map(|id| catalogue.chip(id).map_or(id.clone(), |c| c.name.clone()))
        .collect();
    let vendors: Vec<String> = chips
        .iter()
        .filter_map(|id| catalogue.chip(id).ok().map(|c| c.vendor.clone()))
        .collect();
    let vendor_of = |row: &ValidationRow| {
        catalogue
            .chip(&row.point.chip)
            .map_or(String::new(), |c| c.vendor.clone())
    };
    let scopes: [(String, Scope); 3] = [
        (
            format!("{} on the {} axis", listed(&names), axis.name()),
            Box::new(|r: &ValidationRow| {
                on_axis(r, axis) && chips.iter().any(|c| c.eq_ignore_ascii_case(&r.point.chip))
            }),
        ),
        (
            format!(
                "{} chips on the {} axis",
                vendors.join(" and "),
                axis.name()
            ),
            Box::new(|r: &ValidationRow| on_axis(r, axis) && vendors.contains(&vendor_of(r))),
        ),
        (
            "all chips and axes".to_string(),
            Box::new(|_: &ValidationRow| true),
        ),
    ];
    // Chips no published point runs on at all (in any role, on any axis, in any pool).
    let bare: Vec<String> = chips
        .iter()
        .zip(&names)
        .filter(|(id, _)| !report.rows.iter().any(|r| runs_on(r, id)))
        .map(|(_, name)| name.clone())
        .collect();
    let unmeasured = match bare.len() {
        0 => None,
        _ if chips.len() == 1 => Some("no published point for this chip".to_string()),
        _ => Some(format!("no published point for {}", listed(&bare))),
    };
    let mut missed = Vec::new();
    for (i, (scope, fits)) in scopes.iter().enumerate() {
        let errors: Vec<f64> = holdout(report)
            .filter(|r| fits(r))
            .filter_map(|r| r.error)
            .collect();
        if errors.len() >= MIN_POINTS {
            let s = summarize(errors.into_iter()).expect("at least MIN_POINTS errors");
            let too_few = (!missed.is_empty())
                .then(|| format!("too few published points for {}", missed.join(", nor for ")));
            let lead: Vec<String> = unmeasured.clone().into_iter().chain(too_few).collect();
            let lead = if lead.is_empty() {
                String::new()
            } else {
                format!("{}; ", upper_first(&lead.join("; ")))
            };
            return format!(
                "{lead}measured error on published points for {scope}: median {}, p90 {} over {} points (hold-out).",
                percent(s.median_ape),
                percent(s.p90_ape),
                s.points
            );
        }
        // When no point runs on the chips, "too few for these chips" says nothing more.
        if !(i == 0 && bare.len() == chips.len()) {
            missed.push(scope.clone());
        }
    }
    "No published measurement has been compared with these predictions yet.".to_string()
}

/// Whether a published point ran on chip `id` (its headline chip or any of its pools').
fn runs_on(row: &ValidationRow, id: &str) -> bool {
    row.point.chip.eq_ignore_ascii_case(id)
        || row
            .point
            .pool
            .iter()
            .any(|p| p.chip.eq_ignore_ascii_case(id))
}

fn upper_first(text: &str) -> String {
    let mut chars = text.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use disagg_engine::validation::{run, BenchmarkTable};
    use disagg_engine::Assumptions;

    fn report() -> ValidationReport {
        run(
            Catalogue::builtin(),
            &BenchmarkTable::builtin().unwrap(),
            &Assumptions::default(),
        )
    }

    #[test]
    fn the_error_is_that_of_the_points_named() {
        let r = report();
        let cat = Catalogue::builtin();
        // H200, aggregated: the figures are those of exactly those hold-out rows.
        let rows: Vec<f64> = holdout(&r)
            .filter(|x| x.point.chip == "h200" && x.point.axis.is_none())
            .filter_map(|x| x.error)
            .collect();
        assert!(rows.len() >= MIN_POINTS, "{} rows", rows.len());
        let s = summarize(rows.iter().copied()).unwrap();
        let text = measured_error(&r, &["h200".into()], Axis::Aggregated, cat);
        assert!(
            text.starts_with("measured error on published points for NVIDIA H200"),
            "{text}"
        );
        assert!(
            text.contains(&format!(
                "median {}, p90 {} over {} points",
                percent(s.median_ape),
                percent(s.p90_ape),
                s.points
            )),
            "{text}"
        );
    }

    #[test]
    fn too_few_points_widen_the_scope_and_say_so() {
        let r = report();
        let cat = Catalogue::builtin();
        // The MI300X has published points, but too few speculative hold-out ones of
        // its own or of its vendor's: the sentence says so and widens to every point.
        let amd = |x: &&ValidationRow| cat.chip(&x.point.chip).is_ok_and(|c| c.vendor == "AMD");
        let speculative = holdout(&r)
            .filter(|x| on_axis(x, Axis::Speculative))
            .filter(amd)
            .count();
        assert!(speculative < MIN_POINTS, "{speculative} speculative points");
        assert!(holdout(&r).filter(amd).count() >= MIN_POINTS);
        let text = measured_error(&r, &["mi300x".into()], Axis::Speculative, cat);
        let mi300x = &cat.chip("mi300x").unwrap().name;
        assert!(
            text.starts_with(&format!("Too few published points for {mi300x} on the ")),
            "{text}"
        );
        assert!(!text.contains("no published point"), "{text}");
        let all = r.holdout.unwrap();
        assert!(
            text.contains(&format!(
                "all chips and axes: median {}",
                percent(all.median_ape)
            )) && text.contains(&format!("over {} points", all.points)),
            "{text}"
        );
    }

    #[test]
    fn a_chip_without_any_published_point_says_so() {
        let r = report();
        let cat = Catalogue::builtin();
        // No published point runs on a Groq LPU, in any role or pool.
        assert!(!r.rows.iter().any(|x| runs_on(x, "groq-lpu")));
        let text = measured_error(&r, &["groq-lpu".into()], Axis::Aggregated, cat);
        assert!(
            text.starts_with("No published point for this chip; "),
            "{text}"
        );
        // It then widens: too few for the vendor, so every hold-out point.
        let all = r.holdout.unwrap();
        assert!(
            text.contains("all chips and axes")
                && text.contains(&format!("over {} points", all.points)),
            "{text}"
        );
        // Of two chips, the one without points is named; the other's points still count.
        let text = measured_error(
            &r,
            &["h200".into(), "groq-lpu".into()],
            Axis::Aggregated,
            cat,
        );
        let (h200, groq) = (
            &cat.chip("h200").unwrap().name,
            &cat.chip("groq-lpu").unwrap().name,
        );
        assert!(
            text.starts_with(&format!(
                "No published point for {groq}; measured error on published points for {h200} and {groq} on "
            )),
            "{text}"
        );
        // A chip with points gets no such clause.
        let text = measured_error(&r, &["h200".into()], Axis::Aggregated, cat);
        assert!(
            !text.to_lowercase().contains("no published point"),
            "{text}"
        );
    }
}
