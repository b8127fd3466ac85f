//! `disagg validate --point ID`: one published point, how the table maps it and how far
//! the model is off; with `--explain` the prediction opened into its formulas, and with
//! `--save-bundle` the bundle that reproduces it (`validation::point_bundle`, the same
//! inputs the table ran).

use disagg_engine::validation::{self, point_bundle, BenchmarkTable, ValidationRow};
use disagg_engine::{Assumptions, Catalogue};
use std::path::PathBuf;

/// Ids listed when the one asked for is not in the table.
const SUGGESTIONS: usize = 8;

pub(crate) fn run(
    id: &str,
    json: bool,
    explain: bool,
    save_bundle: &Option<PathBuf>,
    assumptions: &Assumptions,
) -> Result<(), String> {
    if json && explain {
        return Err(
            "--json prints the row and --explain the prediction's formulas: choose one".into(),
        );
    }
    let cat = Catalogue::builtin();
    let table = BenchmarkTable::builtin().map_err(|e| e.to_string())?;
    let id = id.trim();
    let Some(point) = table.point.iter().find(|p| p.id == id) else {
        return Err(unknown(id, &table));
    };
    // The row as the whole table reports it: a point read at an interactivity is found
    // by bisection over batches, which only the table's run does.
    let report = validation::run(
        cat,
        &BenchmarkTable {
            point: vec![point.clone()],
            unmapped: vec![],
        },
        assumptions,
    );
    let row = &report.rows[0];
    // Built before anything prints, so a row without one deployment is refused whole.
    let bundle = if explain || save_bundle.is_some() {
        Some(point_bundle(cat, point, assumptions).map_err(|e| e.to_string())?)
    } else {
        None
    };
    if let (Some(path), Some(b)) = (save_bundle, &bundle) {
        crate::bundle::save(path, b)?;
    }
    if json {
        out!(
            "{}",
            serde_json::to_string_pretty(row).map_err(|e| e.to_string())?
        );
        return Ok(());
    }
    print_row(row, save_bundle.as_ref());
    if let Some(b) = &bundle {
        if explain {
            out!();
            crate::axes::show_prediction(b, false, true, None)?;
        }
    }
    Ok(())
}

/// The refusal for an id the table lacks, listing the ids that share its first
/// letters (or its family's, the letters before the first digit).
fn unknown(id: &str, table: &BenchmarkTable) -> String {
    let family: String = id.chars().take_while(|c| !c.is_ascii_digit()).collect();
    let near: Vec<&str> = table
        .point
        .iter()
        .map(|p| p.id.as_str())
        .filter(|p| !family.is_empty() && p.starts_with(&family))
        .take(SUGGESTIONS)
        .collect();
    if near.is_empty() {
        format!(
            "--point {id:?}: no row of the validation table has that id (`disagg validate` lists them all)"
        )
    } else {
        format!(
            "--point {id:?}: no row of the validation table has that id; rows starting {family}: {}, ...",
            near.join(", ")
        )
    }
}

fn print_row(row: &ValidationRow, saved: Option<&PathBuf>) {
    let p = &row.point;
    let role = match p.role {
        validation::Role::Calibration => "calibration (the constants may be fitted to it)",
        validation::Role::Holdout => "hold-out (never used to fit anything)",
    };
    out!("{}  {role}", p.id);
    out!("  source      {}", p.source);
    out!("  framework   {}", p.framework.id());
    out!(
        "  deployment  {} on {} x {}{}",
        p.model,
        p.chips,
        p.chip,
        row.parallelism
            .map_or(String::new(), |par| format!(" ({par})"))
    );
    out!(
        "  metric      {}: measured {}, predicted {}, error {}",
        p.metric.label(),
        p.measured,
        row.predicted.map_or("-".into(), |v| format!("{v:.4}")),
        row.error
            .map_or("-".into(), |e| format!("{:+.1}%", e * 100.0))
    );
    if let Some(b) = row.read_at_batch {
        out!("  read at     batch {b:.1} (where the model meets the point's interactivity)");
    }
    if let Some(why) = &row.problem {
        out!("  problem     {why}");
    }
    if let Some(note) = &p.note {
        out!("  mapping     {note}");
    }
    if let Some(path) = saved {
        out!(
            "  reproduce   disagg predict --bundle {} --explain",
            path.display()
        );
    }
}
