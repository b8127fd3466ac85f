//! What the export buttons write: every drawn point with its whole configuration and
//! figures, and which frontiers it lies on, as CSV (one row per point) or JSON (with
//! the scenario's link and the frontiers as row indices). Columns come from the
//! points' own serialised form, so a field the engine adds is exported without a
//! change here.

use crate::chart::ChartModel;
use crate::scenario::Scenario;
use disagg_engine::frontier::Objective;
use disagg_engine::sweep::{Frontiers, SweepResult};
use serde_json::{json, Map, Value};

/// The frontiers of `objective` that cloud point `i` lies on, joined by `;`.
fn frontiers_of_point(f: &Frontiers, i: usize) -> String {
    [
        ("overall", &f.all),
        ("single-kind", &f.homogeneous),
        ("mixed", &f.heterogeneous),
    ]
    .into_iter()
    .filter(|(_, members)| members.contains(&i))
    .map(|(name, _)| name)
    .collect::<Vec<_>>()
    .join(";")
}

/// One drawn point as a flat record: its cloud index, its frontiers under both
/// measures, then its serialised fields with nested names joined by dots
/// (`config.pools.0.chip`).
fn record(result: &SweepResult, i: usize) -> Vec<(String, Value)> {
    let mut out = vec![
        ("point".to_string(), json!(i)),
        (
            "throughput_frontiers".to_string(),
            json!(frontiers_of_point(&result.throughput, i)),
        ),
        (
            "cost_frontiers".to_string(),
            json!(frontiers_of_point(&result.cost, i)),
        ),
    ];
    if let Some(p) = result.cloud.get(i) {
        flatten(
            "",
            &serde_json::to_value(p).unwrap_or(Value::Null),
            &mut out,
        );
    }
    out
}

fn flatten(prefix: &str, v: &Value, out: &mut Vec<(String, Value)>) {
    let name = |k: &str| {
        if prefix.is_empty() {
            k.to_string()
        } else {
            format!("{prefix}.{k}")
        }
    };
    match v {
        Value::Object(m) => m.iter().for_each(|(k, v)| flatten(&name(k), v, out)),
        Value::Array(a) => a
            .iter()
            .enumerate()
            .for_each(|(k, v)| flatten(&name(&k.to_string()), v, out)),
        other => out.push((prefix.to_string(), other.clone())),
    }
}

fn cell(v: &Value) -> String {
    let text = match v {
        Value::Null => String::new(),
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    if text.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", text.replace('"', "\"\""))
    } else {
        text
    }
}

/// The drawn points as CSV: a header, then one row per point in the chart's order.
/// Columns are the union over the points (a one-pool baseline leaves the second
/// pool's cells empty).
pub fn csv(model: &ChartModel, result: &SweepResult) -> String {
    let records: Vec<Vec<(String, Value)>> = model
        .points
        .iter()
        .map(|p| record(result, p.cloud_index))
        .collect();
    let mut columns: Vec<&str> = Vec::new();
    for r in &records {
        for (k, _) in r {
            if !columns.contains(&k.as_str()) {
                columns.push(k);
            }
        }
    }
    let mut out = columns.join(",");
    out.push_str("\r\n");
    for r in &records {
        let row: Vec<String> = columns
            .iter()
            .map(|c| {
                r.iter()
                    .find(|(k, _)| k == c)
                    .map_or(String::new(), |(_, v)| cell(v))
            })
            .collect();
        out.push_str(&row.join(","));
        out.push_str("\r\n");
    }
    out
}

/// The drawn points and the frontiers as JSON, with the link that reproduces them.
pub fn json(model: &ChartModel, result: &SweepResult, scenario: &Scenario) -> String {
    let points: Vec<Value> = model
        .points
        .iter()
        .map(|p| {
            let mut m = Map::new();
            m.insert("point".into(), json!(p.cloud_index));
            if let Some(sp) = result.cloud.get(p.cloud_index) {
                if let Ok(Value::Object(fields)) = serde_json::to_value(sp) {
                    m.extend(fields);
                }
            }
            Value::Object(m)
        })
        .collect();
    let frontiers = |o: Objective| {
        let f = result.frontiers_of(o);
        json!({
            "overall": f.all, "single_kind": f.homogeneous,
            "mixed": f.heterogeneous, "aggregated_baseline": f.baseline,
        })
    };
    let doc = json!({
        "tool": "Disagg Explorer",
        "version": env!("CARGO_PKG_VERSION"),
        "link_query": scenario.to_query(),
        "axis": result.axis.id(),
        "target_tok_s_user": result.target_tok_s_user.value(),
        "note": "points are the drawn points; frontiers list their `point` numbers, by measure, among the points that meet the latency limits",
        "frontiers": {
            "output_tok_s_per_chip": frontiers(Objective::ThroughputPerChip),
            "usd_per_mtok_output": frontiers(Objective::CostPerMtok),
        },
        "points": points,
    });
    serde_json::to_string_pretty(&doc).unwrap_or_default()
}

/// A file name for an export of scenario `s`: model, axis and kind.
pub fn file_name(s: &Scenario, what: &str, extension: &str) -> String {
    format!(
        "disagg-{}-{}-{what}.{extension}",
        file_part(&s.model),
        s.axis.id()
    )
}

/// `text` as part of a file name: letters, digits and dots kept, anything else a dash.
pub fn file_part(text: &str) -> String {
    text.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || c == '.' {
                c
            } else {
                '-'
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::explore;
    use disagg_engine::Catalogue;

    fn split(line: &str) -> Vec<String> {
        // Quoted cells may hold commas: a small reader for the tests.
        let (mut cells, mut cur, mut quoted) = (Vec::new(), String::new(), false);
        let mut chars = line.chars().peekable();
        while let Some(c) = chars.next() {
            match (c, quoted) {
                ('"', true) if chars.peek() == Some(&'"') => {
                    cur.push('"');
                    chars.next();
                }
                ('"', _) => quoted = !quoted,
                (',', false) => cells.push(std::mem::take(&mut cur)),
                _ => cur.push(c),
            }
        }
        cells.push(cur);
        cells
    }

    #[test]
    fn the_csv_has_a_row_per_drawn_point_with_its_configuration() {
        let s = Scenario::default();
        let r = explore(&s, Catalogue::builtin()).unwrap();
        let m = ChartModel::new(&r, &s, true, Catalogue::builtin());
        let text = csv(&m, &r);
        let lines: Vec<&str> = text.split("\r\n").filter(|l| !l.is_empty()).collect();
        assert_eq!(lines.len(), m.points.len() + 1);
        let header = split(lines[0]);
        for column in [
            "point",
            "throughput_frontiers",
            "label",
            "class",
            "config.pools.0.chip",
            "config.pools.1.chip",
            "config.pools.0.parallelism.tp",
            "config.batch",
            "ttft_s",
            "tpot_s",
            "tok_s_user",
            "output_tok_s_per_chip",
            "usd_per_mtok_output",
        ] {
            assert!(
                header.iter().any(|h| h == column),
                "no {column}: {header:?}"
            );
        }
        let at = |name: &str| header.iter().position(|h| h == name).unwrap();
        for (line, p) in lines[1..].iter().zip(&m.points) {
            let cells = split(line);
            assert_eq!(cells.len(), header.len(), "{line}");
            let point = &r.cloud[p.cloud_index];
            assert_eq!(cells[at("point")], p.cloud_index.to_string());
            assert_eq!(cells[at("label")], point.label);
            assert_eq!(cells[at("config.pools.0.chip")], point.spec.pools[0].chip);
            let tok: f64 = cells[at("tok_s_user")].parse().unwrap();
            assert_eq!(tok, point.figures.tok_s_user.value());
        }
        // Every frontier point says so.
        let on: usize = lines[1..]
            .iter()
            .filter(|l| split(l)[at("throughput_frontiers")].contains("overall"))
            .count();
        assert_eq!(on, r.throughput.all.len());
    }

    #[test]
    fn the_json_carries_the_link_the_points_and_the_frontiers() {
        let s = Scenario::default();
        let r = explore(&s, Catalogue::builtin()).unwrap();
        let m = ChartModel::new(&r, &s, false, Catalogue::builtin());
        let v: Value = serde_json::from_str(&json(&m, &r, &s)).unwrap();
        assert_eq!(v["link_query"], json!(s.to_query()));
        assert_eq!(v["points"].as_array().unwrap().len(), m.points.len());
        assert_eq!(
            v["frontiers"]["output_tok_s_per_chip"]["overall"],
            json!(r.throughput.all)
        );
        assert!(v["points"][0]["config"]["pools"].is_array());
        assert!(v["points"][0]["tpot_s"].is_number());
    }

    #[test]
    fn cells_with_commas_or_quotes_are_quoted() {
        assert_eq!(cell(&json!("a,b")), "\"a,b\"");
        assert_eq!(cell(&json!("say \"hi\"")), "\"say \"\"hi\"\"\"");
        assert_eq!(cell(&Value::Null), "");
        assert_eq!(cell(&json!(1.5)), "1.5");
        assert_eq!(
            file_name(&Scenario::default(), "points", "csv")
                .matches('/')
                .count(),
            0
        );
    }
}
