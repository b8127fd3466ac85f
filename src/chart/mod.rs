//! What the chart shows, decided in plain code: which points, where the axes run and
//! how they are scaled, the ticks, the colour of a price, and which point lies under
//! the pointer. [`draw`] turns a [`ChartModel`] into pixels with plotters; everything
//! here is tested natively.

pub mod draw;

use crate::format::sig3;
use crate::scenario::YAxis;
use disagg_engine::disagg::Figures;
use disagg_engine::sweep::{Class, SweepResult};

/// How an axis maps data to position.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Scale {
    Linear,
    Log,
}

/// One chart axis over data values `lo..hi` (both positive on a log axis).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AxisRange {
    pub lo: f64,
    pub hi: f64,
    pub scale: Scale,
}

/// A tick: where it sits in plot space and what it reads.
#[derive(Clone, Debug, PartialEq)]
pub struct Tick {
    pub at: f64,
    pub label: String,
}

/// Data spanning at least this ratio gets a log axis.
pub const LOG_SPAN: f64 = 10.0;

/// Most ticks a linear axis draws: about five fit the range by construction; the bound
/// only guards degenerate ranges.
pub const MAX_LINEAR_TICKS: usize = 12;

impl AxisRange {
    /// An axis covering `values` with a little room at both ends; log when they span
    /// a decade or more. Non-finite and (for log) non-positive values are ignored.
    pub fn covering(values: impl IntoIterator<Item = f64>) -> AxisRange {
        let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
        for v in values.into_iter().filter(|v| v.is_finite() && *v > 0.0) {
            lo = lo.min(v);
            hi = hi.max(v);
        }
        if !lo.is_finite() {
            return AxisRange {
                lo: 1.0,
                hi: 100.0,
                scale: Scale::Log,
            };
        }
        if hi / lo >= LOG_SPAN {
            AxisRange {
                lo: lo / 1.25,
                hi: hi * 1.25,
                scale: Scale::Log,
            }
        } else if hi - lo <= hi * 1e-9 {
            // One value, or values a rounding error apart: a range around them, so that
            // ticks are round numbers a step apart rather than steps below a float's
            // resolution.
            AxisRange {
                lo: lo / 2.0,
                hi: hi * 2.0,
                scale: Scale::Linear,
            }
        } else {
            let pad = (hi - lo) * 0.08;
            AxisRange {
                lo: (lo - pad).max(0.0),
                hi: hi + pad,
                scale: Scale::Linear,
            }
        }
    }

    /// Data value to plot space (log10 on a log axis).
    pub fn to_plot(&self, v: f64) -> f64 {
        match self.scale {
            Scale::Linear => v,
            Scale::Log => v.max(f64::MIN_POSITIVE).log10(),
        }
    }

    pub fn plot_range(&self) -> (f64, f64) {
        (self.to_plot(self.lo), self.to_plot(self.hi))
    }

    pub fn contains(&self, v: f64) -> bool {
        v.is_finite() && v >= self.lo && v <= self.hi
    }

    /// Round-numbered ticks inside the range (at most [`MAX_LINEAR_TICKS`] on a linear
    /// axis): decades (with 2 and 5 between when
    /// the range is narrow) on a log axis, steps of 1, 2 or 5 on a linear one.
    pub fn ticks(&self) -> Vec<Tick> {
        let mut values = Vec::new();
        match self.scale {
            Scale::Log => {
                let (a, b) = (
                    self.lo.log10().floor() as i32,
                    self.hi.log10().ceil() as i32,
                );
                let decades = b - a;
                let step = if decades > 8 { 2 } else { 1 };
                let mantissas: &[f64] = if decades <= 2 {
                    &[1.0, 2.0, 5.0]
                } else {
                    &[1.0]
                };
                for e in (a..=b).step_by(step) {
                    for m in mantissas {
                        values.push(m * 10f64.powi(e));
                    }
                }
            }
            Scale::Linear => {
                let raw = (self.hi - self.lo) / 5.0;
                if raw.is_finite() && raw > 0.0 {
                    let mag = 10f64.powf(raw.log10().floor());
                    let step = [1.0, 2.0, 5.0, 10.0]
                        .into_iter()
                        .map(|m| m * mag)
                        .find(|s| *s >= raw)
                        .unwrap_or(10.0 * mag);
                    // Ticks by index: a step below the values' resolution cannot stall
                    // the loop, and there are never more than a handful.
                    let first = (self.lo / step).ceil();
                    for i in 0..MAX_LINEAR_TICKS {
                        let v = (first + i as f64) * step;
                        if v > self.hi + step * 1e-9 {
                            break;
                        }
                        values.push(v);
                    }
                }
            }
        }
        values
            .into_iter()
            .filter(|v| self.contains(*v))
            .map(|v| Tick {
                at: self.to_plot(v),
                label: compact(v),
            })
            .collect()
    }
}

/// 1, 20, 500, 2k, 10k, 1.5M: short labels for ticks.
pub fn compact(v: f64) -> String {
    let a = v.abs();
    let (scaled, suffix) = if a >= 1e9 {
        (v / 1e9, "G")
    } else if a >= 1e6 {
        (v / 1e6, "M")
    } else if a >= 1e3 {
        (v / 1e3, "k")
    } else {
        (v, "")
    };
    let text = sig3(scaled);
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        text
    };
    format!("{text}{suffix}")
}

/// A drawn point: its position in data units, colour value and where it came from.
#[derive(Clone, Debug, PartialEq)]
pub struct PlotPoint {
    pub x: f64,
    pub y: f64,
    /// $/Mtok of output, when every chip in it has a price.
    pub usd_per_mtok: Option<f64>,
    pub class: Class,
    /// Whether the point meets the scenario's TTFT and TPOT limits (drawn grey when not).
    pub meets_slo: bool,
    /// Index into the sweep's cloud.
    pub cloud_index: usize,
}

/// Which frontier a line traces.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Line {
    /// Best single-kind deployments (the aggregated baseline included).
    Homogeneous,
    /// Best mixed deployments.
    Heterogeneous,
}

impl Line {
    pub fn name(self) -> &'static str {
        match self {
            Line::Homogeneous => "best single-kind frontier",
            Line::Heterogeneous => "best mixed frontier",
        }
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct FrontierLine {
    pub line: Line,
    pub points: Vec<(f64, f64)>,
}

/// Everything the chart draws.
#[derive(Clone, Debug, PartialEq)]
pub struct ChartModel {
    pub points: Vec<PlotPoint>,
    pub frontiers: Vec<FrontierLine>,
    pub x: AxisRange,
    pub y: AxisRange,
    /// $/Mtok range of the colour scale, when any point has a price.
    pub colour: Option<(f64, f64)>,
    pub target: f64,
    pub x_label: &'static str,
    pub y_label: &'static str,
    /// Points the y axis cannot show (no price for a per-dollar axis).
    pub unplotted: usize,
}

pub fn y_value(y: YAxis, f: &Figures) -> Option<f64> {
    let v = match y {
        YAxis::TokSPerChip => Some(f.output_tok_s_per_chip.value()),
        YAxis::TokSPerUsdHour => f.output_tok_s_per_usd_hour,
    }?;
    (v.is_finite() && v > 0.0).then_some(v)
}

pub fn y_label(y: YAxis) -> &'static str {
    match y {
        YAxis::TokSPerChip => "output tok/s per chip",
        YAxis::TokSPerUsdHour => "output tok/s per $/hour",
    }
}

fn usd(f: &Figures) -> Option<f64> {
    f.usd_per_mtok_output
        .map(|v| v.value())
        .filter(|v| v.is_finite() && *v > 0.0)
}

/// Draw order: the baseline under the splits, mixed deployments on top.
fn layer(c: Class) -> u8 {
    match c {
        Class::Baseline => 0,
        Class::Homogeneous => 1,
        Class::Heterogeneous => 2,
    }
}

impl ChartModel {
    /// The chart of a sweep; `every_point` draws each pairing's frontier points,
    /// otherwise only the points of the drawn frontiers.
    pub fn new(result: &SweepResult, y: YAxis, every_point: bool) -> ChartModel {
        let frontiers = result.frontiers_of(y.objective());
        let mut on_frontier = vec![false; result.cloud.len()];
        for &i in frontiers.homogeneous.iter().chain(&frontiers.heterogeneous) {
            if let Some(flag) = on_frontier.get_mut(i) {
                *flag = true;
            }
        }
        let mut points = Vec::new();
        let mut unplotted = 0;
        for (i, p) in result.cloud.iter().enumerate() {
            if !every_point && !on_frontier[i] {
                continue;
            }
            let x = p.figures.tok_s_user.value();
            match y_value(y, &p.figures) {
                Some(yv) if x.is_finite() && x > 0.0 => points.push(PlotPoint {
                    x,
                    y: yv,
                    usd_per_mtok: usd(&p.figures),
                    class: p.class,
                    meets_slo: p.meets_slo,
                    cloud_index: i,
                }),
                _ => unplotted += 1,
            }
        }
        points.sort_by_key(|p| layer(p.class));
        let line = |line: Line, pts: &[usize]| FrontierLine {
            line,
            points: result
                .points(pts)
                .filter_map(|p| Some((p.figures.tok_s_user.value(), y_value(y, &p.figures)?)))
                .collect(),
        };
        let frontiers = vec![
            line(Line::Homogeneous, &frontiers.homogeneous),
            line(Line::Heterogeneous, &frontiers.heterogeneous),
        ];
        let target = result.target_tok_s_user.value();
        let x = AxisRange::covering(
            points
                .iter()
                .map(|p| p.x)
                .chain(target.is_finite().then_some(target)),
        );
        let yr = AxisRange::covering(points.iter().map(|p| p.y));
        let prices: Vec<f64> = points.iter().filter_map(|p| p.usd_per_mtok).collect();
        let colour = (!prices.is_empty()).then(|| {
            prices
                .iter()
                .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
                    (lo.min(*v), hi.max(*v))
                })
        });
        ChartModel {
            points,
            frontiers,
            x,
            y: yr,
            colour,
            target,
            x_label: "tok/s per user (interactivity)",
            y_label: y_label(y),
            unplotted,
        }
    }
}

pub type Rgb = (u8, u8, u8);

/// Okabe-Ito stops, cheap to dear: readable by colour-blind users on white.
const STOPS: [Rgb; 4] = [(0, 92, 171), (0, 158, 115), (230, 159, 0), (213, 94, 0)];
/// Points without a price.
pub const UNPRICED: Rgb = (150, 150, 150);

/// The colour of a $/Mtok value on a log scale over `range`.
pub fn colour_of(v: Option<f64>, range: Option<(f64, f64)>) -> Rgb {
    let (Some(v), Some((lo, hi))) = (v, range) else {
        return UNPRICED;
    };
    let t = if hi > lo {
        ((v.ln() - lo.ln()) / (hi.ln() - lo.ln())).clamp(0.0, 1.0)
    } else {
        0.0
    };
    if !t.is_finite() {
        return UNPRICED;
    }
    let seg = t * (STOPS.len() - 1) as f64;
    let i = (seg.floor() as usize).min(STOPS.len() - 2);
    let f = seg - i as f64;
    let mix = |a: u8, b: u8| (a as f64 + (b as f64 - a as f64) * f).round() as u8;
    let (a, b) = (STOPS[i], STOPS[i + 1]);
    (mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// The point nearest `at` among drawn positions, if within `radius` pixels.
pub fn nearest(positions: &[(f64, f64)], at: (f64, f64), radius: f64) -> Option<usize> {
    positions
        .iter()
        .enumerate()
        .map(|(i, p)| (i, (p.0 - at.0).powi(2) + (p.1 - at.1).powi(2)))
        .filter(|(_, d2)| *d2 <= radius * radius)
        .min_by(|a, b| a.1.total_cmp(&b.1))
        .map(|(i, _)| i)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::explore;
    use crate::scenario::Scenario;
    use disagg_engine::Catalogue;

    #[test]
    fn axes_turn_log_when_data_spans_a_decade() {
        let a = AxisRange::covering([3.0, 29.0]);
        assert_eq!(a.scale, Scale::Linear);
        let b = AxisRange::covering([3.0, 30.0, f64::NAN, -1.0, f64::INFINITY]);
        assert_eq!(b.scale, Scale::Log);
        assert!(b.lo < 3.0 && b.hi > 30.0);
        let one = AxisRange::covering([7.0]);
        assert!(one.lo < 7.0 && one.hi > 7.0);
        let none = AxisRange::covering([f64::NAN]);
        assert!(none.lo > 0.0 && none.hi > none.lo);
    }

    #[test]
    fn ticks_are_round_and_inside() {
        let log = AxisRange {
            lo: 2.0,
            hi: 3000.0,
            scale: Scale::Log,
        };
        let labels: Vec<_> = log.ticks().into_iter().map(|t| t.label).collect();
        assert_eq!(labels, ["10", "100", "1k"]);
        let narrow = AxisRange {
            lo: 3.0,
            hi: 90.0,
            scale: Scale::Log,
        };
        let labels: Vec<_> = narrow.ticks().into_iter().map(|t| t.label).collect();
        assert_eq!(labels, ["5", "10", "20", "50"]);
        let lin = AxisRange {
            lo: 0.0,
            hi: 47.0,
            scale: Scale::Linear,
        };
        let labels: Vec<_> = lin.ticks().into_iter().map(|t| t.label).collect();
        assert_eq!(labels, ["0", "10", "20", "30", "40"]);
        // A range one float wide (one point and a target a rounding error above it, a
        // link that hung the page) gives a few ticks, at once.
        let x: f64 = 23.17654743841697;
        let tiny = AxisRange::covering([x, f64::from_bits(x.to_bits() + 1)]);
        assert!(tiny.hi - tiny.lo > x / 2.0, "{tiny:?}");
        let ticks = tiny.ticks();
        assert!(!ticks.is_empty() && ticks.len() <= MAX_LINEAR_TICKS);
        let degenerate = AxisRange {
            lo: x,
            hi: f64::from_bits(x.to_bits() + 1),
            scale: Scale::Linear,
        };
        assert!(degenerate.ticks().len() <= MAX_LINEAR_TICKS);
        for t in log.ticks() {
            let (a, b) = log.plot_range();
            assert!(t.at >= a && t.at <= b);
        }
    }

    #[test]
    fn compact_labels() {
        assert_eq!(compact(1500.0), "1.5k");
        assert_eq!(compact(2_000_000.0), "2M");
        assert_eq!(compact(0.5), "0.5");
        assert_eq!(compact(20.0), "20");
    }

    #[test]
    fn colours_run_cheap_to_dear_and_unpriced_is_grey() {
        let r = Some((1.0, 100.0));
        assert_eq!(colour_of(Some(1.0), r), STOPS[0]);
        assert_eq!(colour_of(Some(100.0), r), STOPS[3]);
        assert_eq!(colour_of(Some(1e9), r), STOPS[3]);
        assert_eq!(colour_of(None, r), UNPRICED);
        assert_eq!(colour_of(Some(f64::NAN), r), UNPRICED);
        assert_eq!(colour_of(Some(5.0), Some((5.0, 5.0))), STOPS[0]);
    }

    #[test]
    fn nearest_point_within_reach() {
        let p = [(0.0, 0.0), (10.0, 0.0), (10.0, 3.0)];
        assert_eq!(nearest(&p, (9.0, 2.5), 5.0), Some(2));
        assert_eq!(nearest(&p, (50.0, 50.0), 5.0), None);
        assert_eq!(nearest(&[], (0.0, 0.0), 5.0), None);
    }

    #[test]
    fn the_model_holds_every_drawable_point_inside_its_axes() {
        let r = explore(&Scenario::default(), Catalogue::builtin()).unwrap();
        for y in [YAxis::TokSPerChip, YAxis::TokSPerUsdHour] {
            let m = ChartModel::new(&r, y, true);
            assert_eq!(m.points.len() + m.unplotted, r.cloud.len());
            let few = ChartModel::new(&r, y, false);
            assert!(few.points.len() < m.points.len());
            let on_lines: usize = few.frontiers.iter().map(|f| f.points.len()).sum();
            assert_eq!(few.points.len(), on_lines);
            assert!(!m.points.is_empty());
            for p in &m.points {
                assert!(m.x.contains(p.x) && m.y.contains(p.y), "{p:?}");
            }
            assert!(m.x.contains(m.target));
            assert!(m.frontiers.iter().all(|f| !f.points.is_empty()));
            // Mixed deployments are drawn last, on top.
            let layers: Vec<u8> = m.points.iter().map(|p| layer(p.class)).collect();
            assert!(layers.windows(2).all(|w| w[0] <= w[1]));
        }
    }
}
