//! `validate --by KEYS`: the table's errors broken down by what its rows state, as the
//! engine's `validation::breakdown` gives them, in text and JSON; bad keys refused.

use super::{disagg, refused, stderr, stdout};
use disagg_engine::validation::{breakdown, run, BenchmarkTable, GroupBy};
use disagg_engine::{Assumptions, Catalogue};

#[test]
fn the_breakdown_prints_the_engines_groups() {
    let table = BenchmarkTable::builtin().unwrap();
    let report = run(Catalogue::builtin(), &table, &Assumptions::default());
    let groups = breakdown(&report.rows, &[GroupBy::Framework, GroupBy::Chip]);
    let o = disagg(&["validate", "--by", "framework,chip"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let lines: Vec<&str> = out.lines().collect();
    assert!(lines[0].starts_with("framework / chip"), "{}", lines[0]);
    // Each group's line, in the engine's order, with its counts and median.
    for (g, line) in groups.iter().zip(&lines[1..]) {
        assert!(line.starts_with(&g.key.join(" / ")), "{line}");
        let n = g.holdout.map_or(0, |s| s.points).to_string();
        assert!(line.split_whitespace().any(|w| w == n), "{n}: {line}");
        if let Some(s) = g.holdout {
            assert!(
                line.contains(&format!("{:.1}%", s.median_ape * 100.0)),
                "{line}"
            );
        }
    }
    // As JSON: the engine's groups themselves.
    let o = disagg(&["validate", "--by", "framework,chip", "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["by"], serde_json::json!(["framework", "chip"]));
    assert_eq!(v["groups"], serde_json::to_value(&groups).unwrap());
}

#[test]
fn bad_keys_and_a_point_beside_them_are_refused() {
    for (args, says) in [
        (vec!["validate", "--by", "vendor"], "not \"vendor\""),
        (vec!["validate", "--by", "chip,chip"], "twice"),
        (
            vec!["validate", "--by", "chip", "--point", "IMXA06c"],
            "use one",
        ),
    ] {
        refused(&disagg(&args), &[says], &args.join(" "));
    }
}
