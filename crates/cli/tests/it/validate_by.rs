//! `validate --by KEYS`: the table's errors broken down by what its rows state, as the
//! engine's `validation::breakdown` gives them, in text and JSON; bad keys refused.

use super::{disagg, refused, stderr, stdout};
use disagg_engine::validation::{breakdown, run, BenchmarkTable, GroupBy, Only};
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

/// `--only` keeps the rows it names: the table lists them alone, its summaries count
/// them alone (the engine's `ValidationReport::only`), and `--by` groups them.
#[test]
fn only_keeps_the_rows_it_names() {
    let table = BenchmarkTable::builtin().unwrap();
    let report = run(Catalogue::builtin(), &table, &Assumptions::default());
    let filters = Only::parse_list("framework=mlx", &table.point).unwrap();
    let kept = report.only(&filters);
    let o = disagg(&["validate", "--only", "framework=mlx"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    let listed = out.lines().filter(|l| l.contains(" mlx ")).count();
    assert_eq!(listed, kept.rows.len());
    let holdout = kept.holdout.unwrap().line();
    assert!(out.contains(&holdout), "{holdout} not in {out}");
    assert!(out.contains(&format!(
        "rows kept by --only: {} of {}",
        kept.rows.len(),
        table.point.len()
    )));
    let o = disagg(&[
        "validate",
        "--only",
        "framework=mlx",
        "--by",
        "chip",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let groups = breakdown(&kept.rows, &[GroupBy::Chip]);
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
        (
            vec!["validate", "--only", "chip=z80"],
            "no row has chip=\"z80\"",
        ),
        (
            vec!["validate", "--only", "role=holdout", "--point", "IMXA06c"],
            "use one",
        ),
    ] {
        refused(&disagg(&args), &[says], &args.join(" "));
    }
}
