//! The compare table: one row per scenario (the current one and each pin), its key
//! figures read off its own sweep at one common target interactivity, and each
//! figure's signed change against a baseline row. The figures are the callout's:
//! the best frontier point at or above the target (`sweep::callout::read`) and the
//! verdict `sweep::callout::callout` decides, so the table and the page's callout
//! never disagree on a scenario.

use crate::format;
use crate::ui::Explored;
use disagg_engine::frontier::Objective;
use disagg_engine::sweep::callout::{callout, read};
use disagg_engine::sweep::{SweepResult, Verdict};
use disagg_engine::units::TokensPerSecond;

/// The figures each row shows, in the table's column order.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Figure {
    /// Best output tok/s per chip at the target.
    TokSPerChip,
    /// Best output $/Mtok at the target.
    UsdPerMtok,
    /// TTFT, TPOT and chips of the best tok/s-per-chip point.
    Ttft,
    Tpot,
    Chips,
}

impl Figure {
    pub const ALL: [Figure; 5] = [
        Figure::TokSPerChip,
        Figure::UsdPerMtok,
        Figure::Ttft,
        Figure::Tpot,
        Figure::Chips,
    ];

    /// The column's heading.
    pub fn heading(self) -> &'static str {
        match self {
            Figure::TokSPerChip => "Best tok/s per chip",
            Figure::UsdPerMtok => "Best $/Mtok",
            Figure::Ttft => "Its TTFT",
            Figure::Tpot => "Its TPOT",
            Figure::Chips => "Its chips",
        }
    }

    fn show(self, v: f64) -> String {
        match self {
            Figure::TokSPerChip => format::sig3(v),
            Figure::UsdPerMtok => format!("${}", format::sig3(v)),
            Figure::Ttft | Figure::Tpot => format!("{} ms", format::sig3(v)),
            // A whole count, whatever its size.
            Figure::Chips => format::count(v.round().max(0.0) as u64),
        }
    }
}

/// Which row the deltas are taken against.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Baseline {
    /// The scenario the page shows now.
    #[default]
    Current,
    /// The first pinned scenario.
    FirstPin,
}

/// A scenario's key figures at a target: each a value, or why there is none.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyFigures {
    pub values: Vec<Result<f64, String>>,
    /// Mixed against single-kind at the target, per measure (throughput, then cost),
    /// as the callout decides it.
    pub verdicts: [(Verdict, Option<f64>); 2],
}

impl KeyFigures {
    pub fn get(&self, f: Figure) -> &Result<f64, String> {
        &self.values[Figure::ALL.iter().position(|x| *x == f).unwrap_or(0)]
    }
}

/// A sweep's key figures at `target`.
pub fn key_figures(r: &SweepResult, target: TokensPerSecond) -> KeyFigures {
    let (best, tput) = read(
        &r.cloud,
        &r.throughput.all,
        Objective::ThroughputPerChip,
        target,
    );
    let (_, cost) = read(&r.cloud, &r.cost.all, Objective::CostPerMtok, target);
    let unreached = || "nothing reaches the target".to_string();
    let values = Figure::ALL
        .iter()
        .map(|f| {
            let Some(p) = &best else {
                return Err(unreached());
            };
            let v = match f {
                Figure::TokSPerChip => tput,
                Figure::UsdPerMtok => return cost.ok_or_else(|| "no price at the target".into()),
                Figure::Ttft => Some(p.figures.ttft.value() * 1e3),
                Figure::Tpot => Some(p.figures.tpot.value() * 1e3),
                Figure::Chips => Some(f64::from(p.figures.chips)),
            };
            v.filter(|v| v.is_finite())
                .ok_or_else(|| "no finite value".to_string())
        })
        .collect();
    let verdict = |o: Objective| {
        let c = callout(r.axis, &r.cloud, r.frontiers_of(o), o, target);
        (c.verdict, c.advantage)
    };
    KeyFigures {
        values,
        verdicts: [
            verdict(Objective::ThroughputPerChip),
            verdict(Objective::CostPerMtok),
        ],
    }
}

/// The signed change of `v` against `base`, as a fraction of `base`: 0.12 is 12%
/// more. `Err` says why there is none (never NaN or infinity).
pub fn delta(v: &Result<f64, String>, base: &Result<f64, String>) -> Result<f64, String> {
    match (v, base) {
        (Err(_), _) => Err("no figure to compare".into()),
        (_, Err(_)) => Err("the baseline has none".into()),
        (Ok(v), Ok(b)) if b.is_finite() && *b > 0.0 && v.is_finite() => Ok(v / b - 1.0),
        _ => Err("the baseline is zero".into()),
    }
}

/// A change in percent, signed: "+12%", "-3.5%"; changes under 0.05% read "±0%".
pub fn show_delta(d: f64) -> String {
    let pct = d * 100.0;
    if !pct.is_finite() {
        return format::MISSING.into();
    }
    if pct.abs() < 0.05 {
        "±0%".into()
    } else if pct.abs() < 10.0 {
        format!("{pct:+.1}%")
    } else {
        format!("{pct:+.0}%")
    }
}

/// The verdicts in words: "mixed +12% on tok/s per chip, on par on $/Mtok".
pub fn show_verdicts(verdicts: &[(Verdict, Option<f64>); 2]) -> String {
    let measures = [Objective::ThroughputPerChip, Objective::CostPerMtok];
    verdicts
        .iter()
        .zip(measures)
        .map(|((v, adv), o)| {
            let by = adv.map(show_delta).unwrap_or_default();
            match v {
                Verdict::MixedWins => format!("mixed wins on {} ({by})", o.name()),
                Verdict::MixedLoses => format!("mixed loses on {} ({by})", o.name()),
                Verdict::OnPar => format!("on par on {}", o.name()),
                Verdict::NoComparison => format!("no comparison on {}", o.name()),
            }
        })
        .collect::<Vec<_>>()
        .join("; ")
}

/// One scenario of the table, as the page holds it.
pub struct Source<'a> {
    pub name: String,
    /// `None` while its sweep runs.
    pub sweep: Option<&'a Explored>,
}

/// A cell: the figure and its change against the baseline.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    pub value: String,
    /// "+12%", "baseline", or why there is no change to show.
    pub delta: String,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Row {
    pub name: String,
    pub baseline: bool,
    pub cells: Vec<Cell>,
    pub verdict: String,
}

/// The table: the rows of `sources` read at one target, with deltas against row
/// `baseline`. The target is the baseline's sweep's (its own or the default one), or,
/// while that runs or failed, the first finished sweep's; `None` when none has.
pub fn rows(sources: &[Source], baseline: usize) -> (Option<TokensPerSecond>, Vec<Row>) {
    fn result<'a>(s: &Source<'a>) -> Option<&'a SweepResult> {
        s.sweep.and_then(|e| e.result.as_ref().ok())
    }
    let target = sources
        .get(baseline)
        .and_then(result)
        .or_else(|| sources.iter().find_map(result))
        .map(|r| r.target_tok_s_user);
    let Some(target) = target else {
        let rows = sources
            .iter()
            .enumerate()
            .map(|(i, s)| pending_row(s, i == baseline))
            .collect();
        return (None, rows);
    };
    let figures: Vec<Result<KeyFigures, String>> = sources
        .iter()
        .map(|s| match s.sweep {
            None => Err("sweeping…".to_string()),
            Some(e) => match &e.result {
                Ok(r) => Ok(key_figures(r, target)),
                Err(why) => Err(format!("no sweep: {why}")),
            },
        })
        .collect();
    let base = figures.get(baseline).and_then(|f| f.as_ref().ok());
    let rows = sources
        .iter()
        .zip(&figures)
        .enumerate()
        .map(|(i, (s, f))| {
            let is_base = i == baseline;
            let (cells, verdict) = match f {
                Err(why) => (vec![missing(why); Figure::ALL.len()], String::new()),
                Ok(k) => (
                    Figure::ALL
                        .iter()
                        .map(|&fig| {
                            let v = k.get(fig);
                            Cell {
                                value: v.as_ref().map_or_else(Clone::clone, |v| fig.show(*v)),
                                delta: if is_base {
                                    "baseline".into()
                                } else {
                                    match base {
                                        None => "the baseline has no sweep".into(),
                                        Some(b) => {
                                            delta(v, b.get(fig)).map_or_else(|why| why, show_delta)
                                        }
                                    }
                                },
                            }
                        })
                        .collect(),
                    show_verdicts(&k.verdicts),
                ),
            };
            Row {
                name: s.name.clone(),
                baseline: is_base,
                cells,
                verdict,
            }
        })
        .collect();
    (Some(target), rows)
}

fn missing(why: &str) -> Cell {
    Cell {
        value: why.chars().take(120).collect(),
        delta: String::new(),
    }
}

fn pending_row(s: &Source, baseline: bool) -> Row {
    let why = match s.sweep.map(|e| &e.result) {
        Some(Err(why)) => format!("no sweep: {why}"),
        _ => "sweeping…".to_string(),
    };
    Row {
        name: s.name.clone(),
        baseline,
        cells: vec![missing(&why); Figure::ALL.len()],
        verdict: String::new(),
    }
}
