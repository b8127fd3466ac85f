//! `validate --point ID`: one row as the table reports it, its prediction opened, and
//! the bundle that reproduces it, which `predict --bundle` runs to the same figure.

use super::{disagg, refused, stderr, stdout};
use disagg_engine::validation::{run, BenchmarkTable};
use disagg_engine::{Assumptions, Catalogue};

/// The row this file opens: TensorRT-LLM on four B200, its mean TTFT.
const ROW: &str = "IMXA06c";

fn table_row(id: &str) -> disagg_engine::validation::ValidationRow {
    let table = BenchmarkTable::builtin().unwrap();
    let report = run(Catalogue::builtin(), &table, &Assumptions::default());
    report.rows.into_iter().find(|r| r.point.id == id).unwrap()
}

#[test]
fn a_row_prints_its_measurement_prediction_and_mapping() {
    let row = table_row(ROW);
    let o = disagg(&["validate", "--point", ROW]);
    assert!(o.status.success(), "{}", stderr(&o));
    let out = stdout(&o);
    assert!(out.starts_with(&format!("{ROW}  hold-out")), "{out}");
    let predicted = format!("predicted {:.4}", row.predicted.unwrap());
    let error = format!("error {:+.1}%", row.error.unwrap() * 100.0);
    for s in [
        "TTFT, ms: measured 161.74",
        predicted.as_str(),
        error.as_str(),
        "framework   trtllm",
        "mapping     TensorRT-LLM on 4 x B200",
    ] {
        assert!(out.contains(s), "{s:?} not in {out}");
    }
    // As JSON: the table's row itself.
    let o = disagg(&["validate", "--point", ROW, "--json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    assert_eq!(v["point"]["id"], ROW);
    assert_eq!(v["predicted"].as_f64(), row.predicted);
}

#[test]
fn a_rows_bundle_runs_to_its_prediction_and_its_explanation_opens_it() {
    let row = table_row(ROW);
    let file = std::env::temp_dir().join(format!("disagg-point-{}.json", std::process::id()));
    let file_s = file.to_str().unwrap();
    let o = disagg(&["validate", "--point", ROW, "--save-bundle", file_s]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(
        stdout(&o).contains(&format!("disagg predict --bundle {file_s} --explain")),
        "{}",
        stdout(&o)
    );
    // The bundle's TTFT is the row's prediction (ms in the table, s in the JSON).
    let o = disagg(&["predict", "--bundle", file_s, "--json"]);
    assert!(o.status.success(), "{}", stderr(&o));
    let v: serde_json::Value = serde_json::from_str(&stdout(&o)).unwrap();
    let ttft_ms = v["ttft_s"].as_f64().unwrap() * 1e3;
    let predicted = row.predicted.unwrap();
    assert!(
        (ttft_ms - predicted).abs() <= 1e-9 * predicted,
        "{ttft_ms} against {predicted}"
    );
    // --explain prints the row, then the prediction as `predict --explain` does.
    let explained = stdout(&disagg(&["validate", "--point", ROW, "--explain"]));
    let predict = stdout(&disagg(&["predict", "--bundle", file_s, "--explain"]));
    let (head, rest) = explained.split_once("\n\n").unwrap();
    assert!(head.starts_with(ROW), "{head}");
    assert_eq!(rest, predict);
    assert!(rest.contains("How each figure is computed"), "{rest}");
    std::fs::remove_file(&file).ok();
}

#[test]
fn a_wrong_or_incomplete_request_is_refused_by_name() {
    let o = disagg(&["validate", "--point", "IMXA99z"]);
    refused(&o, &["--point \"IMXA99z\"", "IMXA01a"], "an unknown id");
    let o = disagg(&["validate", "--point", "zzz"]);
    refused(
        &o,
        &["no row of the validation table"],
        "an id of no family",
    );
    let o = disagg(&["validate", "--explain"]);
    refused(&o, &["--point ID"], "--explain alone");
    let o = disagg(&["validate", "--save-bundle", "x.json"]);
    refused(&o, &["--point ID"], "--save-bundle alone");
    let o = disagg(&["validate", "--point", ROW, "--json", "--explain"]);
    refused(&o, &["choose one"], "--json with --explain");
    // A row read at an interactivity has no one deployment to open or save.
    let table = BenchmarkTable::builtin().unwrap();
    let targeted = &table.point.iter().find(|p| p.at.is_some()).unwrap().id;
    let o = disagg(&["validate", "--point", targeted, "--explain"]);
    refused(&o, &["interactivity"], "a targeted row's explanation");
    // The row itself still prints, read where the model meets its interactivity.
    let o = disagg(&["validate", "--point", targeted]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert!(stdout(&o).contains("read at     batch"), "{}", stdout(&o));
}
