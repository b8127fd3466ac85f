//! The callout: the best mixed against the best single-kind deployment at the target
//! interactivity, read off the frontiers, and the verdict in words.

use super::{Frontiers, SweepPoint};
use crate::disagg::{Axis, Limiter};
use crate::frontier::{point_at, Objective};
use crate::kernel::Bottleneck;
use crate::units::TokensPerSecond;
use serde::{Deserialize, Serialize};

/// Advantages smaller than this either way are a tie: the model's own error is far
/// larger (`audit/AUDIT.md`, "Validation").
pub const ON_PAR: f64 = 0.005;

/// What the comparison at the target says.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Verdict {
    /// The mixed deployment is better by at least [`ON_PAR`].
    MixedWins,
    /// Within [`ON_PAR`] of each other.
    OnPar,
    /// The single-kind deployment is better by at least [`ON_PAR`].
    MixedLoses,
    /// One side reaches no point at the target, or the axis has no mixed deployments.
    NoComparison,
}

impl Verdict {
    pub fn of(advantage: Option<f64>) -> Verdict {
        match advantage {
            Some(a) if a >= ON_PAR => Verdict::MixedWins,
            Some(a) if a > -ON_PAR => Verdict::OnPar,
            Some(_) => Verdict::MixedLoses,
            None => Verdict::NoComparison,
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Callout {
    pub objective: Objective,
    pub target_tok_s_user: TokensPerSecond,
    /// The best mixed point fast enough for the target.
    pub heterogeneous: Option<SweepPoint>,
    /// The best single-kind point fast enough for the target.
    pub homogeneous: Option<SweepPoint>,
    /// The objective's value of each point named above: the numbers the verdict
    /// compares are those of the deployments it names, as the frontier tables show them.
    pub heterogeneous_value: Option<f64>,
    pub homogeneous_value: Option<f64>,
    /// How much better the mixed frontier is at the target (0.38 = 38% more tok/s per
    /// chip, or 38% lower $/Mtok); negative when it is worse.
    pub advantage: Option<f64>,
    /// The verdict `advantage` gives: the one place a win is decided.
    pub verdict: Verdict,
    pub headline: String,
    pub why: String,
}

/// The callouts' whys, each once: both measures often name the same two deployments.
pub fn distinct_whys<'a>(callouts: impl IntoIterator<Item = &'a Callout>) -> Vec<&'a str> {
    let mut whys: Vec<&str> = Vec::new();
    for c in callouts {
        if !whys.contains(&c.why.as_str()) {
            whys.push(&c.why);
        }
    }
    whys
}

/// The geometric middle of the interactivity range both the mixed and the
/// single-kind frontiers reach (of the whole frontier when one is empty).
pub(super) fn default_target(cloud: &[SweepPoint], f: &Frontiers) -> TokensPerSecond {
    let range = |idx: &[usize]| {
        let lo = cloud.get(*idx.first()?)?.figures.tok_s_user.0;
        let hi = cloud.get(*idx.last()?)?.figures.tok_s_user.0;
        Some((lo, hi))
    };
    let both = match (range(&f.heterogeneous), range(&f.homogeneous)) {
        (Some((a0, a1)), Some((b0, b1))) if a0.max(b0) < a1.min(b1) => {
            Some((a0.max(b0), a1.min(b1)))
        }
        _ => None,
    };
    TokensPerSecond(match both.or_else(|| range(&f.all)) {
        Some((lo, hi)) if lo > 0.0 => (lo * hi).sqrt(),
        _ => 10.0,
    })
}

/// The frontier point that serves `target` best (the first at or above it) and its
/// value of `objective`; points without a value (unpriced, for $/Mtok) are skipped.
pub fn read(
    cloud: &[SweepPoint],
    frontier: &[usize],
    objective: Objective,
    target: TokensPerSecond,
) -> (Option<SweepPoint>, Option<f64>) {
    let points: Vec<&SweepPoint> = frontier
        .iter()
        .filter_map(|&i| cloud.get(i))
        .filter(|p| objective.value(&p.figures).is_some())
        .collect();
    let xs: Vec<f64> = points.iter().map(|p| p.figures.tok_s_user.0).collect();
    let best = point_at(&xs, target.value()).map(|i| points[i].clone());
    let value = best.as_ref().and_then(|p| objective.value(&p.figures));
    (best, value)
}

pub(super) fn fmt_value(objective: Objective, v: f64) -> String {
    match objective {
        Objective::ThroughputPerChip => format!("{} tok/s per chip", fmt_num(v)),
        Objective::CostPerMtok => format!("${:.3}/Mtok", v),
    }
}

/// A number with sensible significant digits for prose.
pub fn fmt_num(v: f64) -> String {
    if !v.is_finite() {
        return "n/a".into();
    }
    let a = v.abs();
    if a >= 100.0 {
        format!("{v:.0}")
    } else if a >= 10.0 {
        format!("{v:.1}")
    } else {
        format!("{v:.2}")
    }
}

pub fn callout(
    axis: Axis,
    cloud: &[SweepPoint],
    f: &Frontiers,
    objective: Objective,
    target: TokensPerSecond,
) -> Callout {
    let (het, het_v) = read(cloud, &f.heterogeneous, objective, target);
    let (hom, hom_v) = read(cloud, &f.homogeneous, objective, target);
    let advantage = match (het_v, hom_v) {
        (Some(a), Some(b)) if b > 0.0 && a > 0.0 => Some(objective.advantage(a, b)),
        _ => None,
    };
    let verdict = Verdict::of(advantage);
    // The frontier runs from slow to fast: its last point is the fastest reachable.
    let fastest = f
        .all
        .last()
        .and_then(|&i| cloud.get(i))
        .map(|p| p.figures.tok_s_user);
    let (headline, why) = prose(
        axis, objective, target, f, fastest, &het, &hom, verdict, advantage,
    );
    Callout {
        objective,
        target_tok_s_user: target,
        heterogeneous: het,
        homogeneous: hom,
        heterogeneous_value: het_v,
        homogeneous_value: hom_v,
        advantage,
        verdict,
        headline,
        why,
    }
}

/// The verdict in words: the measure and the target first, then one sentence whose
/// numbers are those of the deployments it names; the why names their layouts.
#[allow(clippy::too_many_arguments)]
fn prose(
    axis: Axis,
    objective: Objective,
    target: TokensPerSecond,
    f: &Frontiers,
    fastest: Option<TokensPerSecond>,
    mixed: &Option<SweepPoint>,
    single: &Option<SweepPoint>,
    verdict: Verdict,
    advantage: Option<f64>,
) -> (String, String) {
    let measure = format!(
        "{} at {} tok/s/user",
        capitalise(objective.name()),
        fmt_num(target.value())
    );
    let value = |p: &SweepPoint| fmt_value(objective, objective.value(&p.figures).unwrap_or(0.0));
    let both_why = |s: &SweepPoint, m: &SweepPoint| {
        format!(
            "Single-kind: {} Mixed: {}",
            explain_point(s),
            explain_point(m)
        )
    };
    // Nothing reaches the target: say how fast the fastest deployment is, or that
    // nothing was left to draw.
    let unreached = match fastest {
        Some(v) => format!(
            "{measure}: no deployment reaches the target; the fastest reaches {} tok/s/user.",
            fmt_num(v.value())
        ),
        None => format!("{measure}: no deployment is left to compare (see the notes)."),
    };
    match (mixed, single, advantage) {
        _ if axis == Axis::Aggregated => match single {
            Some(s) => (
                format!(
                    "{measure}: the best aggregated deployment, {}, gives {}; mixed deployments need a disaggregation axis.",
                    s.phrase,
                    value(s)
                ),
                explain_point(s),
            ),
            None => (
                unreached,
                "Lower the target interactivity or add faster chips.".into(),
            ),
        },
        (Some(m), Some(s), Some(adv)) => (
            match verdict {
                Verdict::MixedWins => format!(
                    "{measure}: mixed wins by {}: {} gives {}, the best single-kind deployment ({}) {}.",
                    pct(adv),
                    m.phrase,
                    value(m),
                    s.phrase,
                    value(s)
                ),
                Verdict::OnPar => format!(
                    "{measure}: mixed and single-kind are on par (within {}): {} gives {}, {} gives {}.",
                    pct(ON_PAR),
                    m.phrase,
                    value(m),
                    s.phrase,
                    value(s)
                ),
                _ => format!(
                    "{measure}: single-kind wins: {} gives {}; the best mixed deployment ({}) gives {}, {} behind.",
                    s.phrase,
                    value(s),
                    m.phrase,
                    value(m),
                    pct(-adv)
                ),
            },
            both_why(s, m),
        ),
        (None, Some(s), _) => (
            format!(
                "{measure}: only single-kind deployments reach the target; the best, {}, gives {}.",
                s.phrase,
                value(s)
            ),
            explain_point(s),
        ),
        (Some(m), None, _) => (
            format!(
                "{measure}: only mixed deployments reach the target; the best, {}, gives {}.",
                m.phrase,
                value(m)
            ),
            explain_point(m),
        ),
        _ => (
            if objective == Objective::CostPerMtok && f.all.is_empty() {
                format!("{measure}: no priced deployment; $/Mtok needs chips with a public price.")
            } else {
                unreached
            },
            "Lower the target interactivity, raise the chip budget or add faster chips.".into(),
        ),
    }
}

/// A percentage for prose: whole percents, and one decimal below one percent.
pub(super) fn pct(x: f64) -> String {
    if x.abs() < 0.01 {
        format!("{:.1}%", x * 100.0)
    } else {
        format!("{:.0}%", x * 100.0)
    }
}

fn capitalise(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().collect::<String>() + c.as_str(),
        None => String::new(),
    }
}

/// What holds a point back, in one sentence.
pub fn explain_point(p: &SweepPoint) -> String {
    let f = &p.figures;
    let mut s = format!(
        "{} decodes {}-bound",
        p.label,
        match f.bottleneck {
            Bottleneck::Compute => "compute",
            Bottleneck::WeightMemory => "weight-read",
            Bottleneck::KvMemory => "KV-read",
            Bottleneck::Communication => "communication",
            Bottleneck::Overhead => "overhead",
        }
    );
    if f.prefill_share > 0.005 {
        s.push_str(&format!(
            ", with {:.0}% of its time lost to prefill",
            f.prefill_share * 100.0
        ));
    }
    match f.limiter {
        Limiter::Colocated => {}
        l => s.push_str(&format!("; the {l} sets the pace")),
    }
    if f.transfer.0 > 0.0 {
        s.push_str(&format!(
            " ({:.2} ms on the inter-pool link)",
            f.transfer.ms()
        ));
    }
    s.push('.');
    s
}
