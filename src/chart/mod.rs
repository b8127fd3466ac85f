//! What the chart shows, decided in plain code: which points, where the axes run and
//! how they are scaled, the ticks, the colour of a price, and which point lies under
//! the pointer. [`draw`] turns a [`ChartModel`] into pixels with plotters; everything
//! here is tested natively.

pub mod canvas;
pub mod cloud;
pub mod describe;
pub mod draw;
pub(crate) mod frame;
pub mod legend;
mod measured;
#[cfg(test)]
pub(crate) mod recorder;

use crate::format::sig3;
pub use crate::pins::overlay::PinLine;
use crate::scenario::{ColourBy, Scenario, YAxis};
pub use cloud::Cloud;
use disagg_engine::disagg::Figures;
use disagg_engine::sweep::{Class, SweepResult};
use disagg_engine::Catalogue;
pub use measured::MeasuredMark;

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

/// Fewest ticks an axis aims at.
pub const MIN_TICKS: usize = 5;

/// Most ticks a linear axis draws: at most thirteen fit the range by construction (a
/// step 2.5 times wider gave fewer than five); the bound guards degenerate ranges.
pub const MAX_LINEAR_TICKS: usize = 14;

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

    /// Round-numbered ticks inside the range, at least [`MIN_TICKS`] where round
    /// numbers allow. On a log axis, the sparsest of 1; 1, 3; 1, 2, 5; and
    /// 1, 1.5, 2, 3, 5, 7 per decade that gives enough (every other decade past eight);
    /// on a linear one, the widest step of 1, 2 or 5 times a power of ten that does.
    pub fn ticks(&self) -> Vec<Tick> {
        let values = match self.scale {
            Scale::Log => self.log_tick_values(),
            Scale::Linear => self.linear_tick_values(),
        };
        values
            .into_iter()
            .filter(|v| self.contains(*v))
            .map(|v| Tick {
                at: self.to_plot(v),
                label: compact(v),
            })
            .collect()
    }

    fn log_tick_values(&self) -> Vec<f64> {
        const MANTISSAS: [&[f64]; 4] = [
            &[1.0],
            &[1.0, 3.0],
            &[1.0, 2.0, 5.0],
            &[1.0, 1.5, 2.0, 3.0, 5.0, 7.0],
        ];
        let (a, b) = (
            self.lo.log10().floor() as i32,
            self.hi.log10().ceil() as i32,
        );
        let step = if b - a > 8 { 2 } else { 1 };
        let with = |mantissas: &[f64]| -> Vec<f64> {
            (a..=b)
                .step_by(step)
                .flat_map(|e| mantissas.iter().map(move |m| m * 10f64.powi(e)))
                .filter(|v| self.contains(*v))
                .collect()
        };
        let mut values = Vec::new();
        for mantissas in MANTISSAS {
            values = with(mantissas);
            if values.len() >= MIN_TICKS {
                break;
            }
        }
        values
    }

    fn linear_tick_values(&self) -> Vec<f64> {
        let span = self.hi - self.lo;
        if !(span.is_finite() && span > 0.0) {
            return Vec::new();
        }
        let count = |step: f64| ((self.hi / step).floor() - (self.lo / step).ceil() + 1.0).max(0.0);
        // From a step wider than the range down, the first that gives enough ticks.
        let top = 10f64.powf(span.log10().ceil());
        let step = (0..12)
            .map(|i| top / [1.0, 2.0, 5.0][i % 3] / 10f64.powi(i as i32 / 3))
            .find(|s| count(*s) >= MIN_TICKS as f64)
            .unwrap_or(top / 1e4);
        // Ticks by index: a step below the values' resolution cannot stall the loop.
        let first = (self.lo / step).ceil();
        (0..MAX_LINEAR_TICKS)
            .map(|i| (first + i as f64) * step)
            .take_while(|v| *v <= self.hi + step * 1e-9)
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
    /// The chips of its first and last pool (prefill and decode, attention and experts,
    /// target and draft; the same twice for one kind), as indices into
    /// [`ChartModel::chips`].
    pub chips: [usize; 2],
}

/// A chip as the chart's colour key shows it.
#[derive(Clone, Debug, PartialEq)]
pub struct ChipKey {
    pub id: String,
    pub name: String,
    pub colour: Rgb,
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
    pub colour_by: ColourBy,
    /// Every chip of the scenario, in its order, with a colour of its own.
    pub chips: Vec<ChipKey>,
    /// The pool roles a mixed point's halves stand for (left, right), when there is a
    /// mixed point.
    pub halves: Option<(&'static str, &'static str)>,
    pub target: f64,
    pub x_label: &'static str,
    pub y_label: &'static str,
    /// Points the y axis cannot show (no price for a per-dollar axis).
    pub unplotted: usize,
    /// What a grey point falls short of, in the legend's words.
    pub misses: &'static str,
    /// The pinned scenarios' frontiers, dashed over the sweep (`ChartModel::with_pins`,
    /// in `crate::pins::overlay`).
    pub pins: Vec<PinLine>,
    /// A published measurement of the deployment the scenario shows, marked with a
    /// cross (`ChartModel::with_measured`).
    pub measured: Option<MeasuredMark>,
}

impl ChartModel {
    /// Widens the axes to every point, the target and the overlays drawn over them (the
    /// pinned frontiers, a measured cross): the one fit `with_pins` and `with_measured`
    /// share.
    pub(crate) fn fit_overlays(&mut self) {
        let pins = |axis: fn(&(f64, f64)) -> f64| {
            self.pins
                .iter()
                .flat_map(move |l| l.points.iter().map(axis))
        };
        let target = self.target;
        self.x = AxisRange::covering(
            self.points
                .iter()
                .map(|p| p.x)
                .chain(pins(|p| p.0))
                .chain(target.is_finite().then_some(target))
                .chain(self.measured.as_ref().map(|m| m.x)),
        );
        self.y = AxisRange::covering(
            self.points
                .iter()
                .map(|p| p.y)
                .chain(pins(|p| p.1))
                .chain(self.measured.as_ref().map(|m| m.y)),
        );
    }
}

/// What the scenario's grey points fall short of: its TTFT or TPOT limit, the request
/// rate it asks the deployment to carry, or either.
pub fn misses_label(s: &Scenario) -> &'static str {
    let limits = s.ttft_ms.is_some() || s.tpot_ms.is_some();
    match (limits, s.rate.is_some()) {
        (true, true) => "misses the SLO or the rate",
        (false, true) => "cannot carry the rate",
        _ => "misses the SLO",
    }
}

pub fn y_value(y: YAxis, f: &Figures) -> Option<f64> {
    let v = match y {
        YAxis::TokSPerChip => Some(f.output_tok_s_per_chip.value()),
        // The dollars the frontier ranks by (rental, or ownership with `own=1`).
        YAxis::TokSPerUsdHour => f.ranked_output_tok_s_per_usd_hour(),
    }?;
    (v.is_finite() && v > 0.0).then_some(v)
}

pub fn y_label(y: YAxis) -> &'static str {
    match y {
        YAxis::TokSPerChip => "output tok/s per chip",
        YAxis::TokSPerUsdHour => "output tok/s per $/hour",
    }
}

impl ChartModel {
    /// The chart of a sweep as scenario `s` asks to see it (y axis, colours);
    /// `every_point` draws each pairing's frontier points, otherwise only the points of
    /// the drawn frontiers.
    pub fn new(
        result: &SweepResult,
        s: &Scenario,
        every_point: bool,
        catalogue: &Catalogue,
    ) -> ChartModel {
        ChartModel::of(
            &Cloud::new(result, &s.chips, catalogue),
            result,
            s,
            every_point,
        )
    }

    /// [`ChartModel::new`] from the sweep's [`Cloud`], built once from the same
    /// `result` and the chips of `s`: what a y axis, the colours and the filter change.
    pub fn of(cloud: &Cloud, result: &SweepResult, s: &Scenario, every_point: bool) -> ChartModel {
        let y = s.y_axis;
        let frontiers = result.frontiers_of(y.objective());
        let mut on_frontier = vec![false; result.cloud.len()];
        for &i in frontiers.homogeneous.iter().chain(&frontiers.heterogeneous) {
            if let Some(flag) = on_frontier.get_mut(i) {
                *flag = true;
            }
        }
        let mut points = Vec::new();
        let mut unplotted = 0;
        for p in &cloud.points {
            let i = p.cloud_index;
            let Some(swept) = result.cloud.get(i) else {
                continue;
            };
            // The deployment the scenario asks to show is drawn whatever the filter.
            if !every_point && !on_frontier[i] && result.shown != Some(i) {
                continue;
            }
            match y_value(y, &swept.figures) {
                Some(yv) if p.x.is_finite() && p.x > 0.0 => {
                    points.push(PlotPoint { y: yv, ..p.clone() })
                }
                _ => unplotted += 1,
            }
        }
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
            colour_by: s.colour_by,
            chips: cloud.chips.clone(),
            halves: cloud.halves,
            target,
            x_label: "tok/s per user (interactivity)",
            y_label: y_label(y),
            unplotted,
            misses: misses_label(s),
            pins: Vec::new(),
            measured: None,
        }
    }
}

pub type Rgb = (u8, u8, u8);

/// Okabe-Ito stops, cheap to dear: readable by colour-blind users on white.
const STOPS: [Rgb; 4] = [(0, 92, 171), (0, 158, 115), (230, 159, 0), (213, 94, 0)];
/// Points without a price.
pub const UNPRICED: Rgb = (150, 150, 150);

/// Chip colours: Okabe-Ito without its yellow and black, then Paul Tol's muted set;
/// twelve, one per chip kind the page allows, none of them the greys of missing data.
const CHIP_COLOURS: [Rgb; 12] = [
    (0, 114, 178),
    (213, 94, 0),
    (0, 158, 115),
    (230, 159, 0),
    (204, 121, 167),
    (86, 180, 233),
    (51, 34, 136),
    (153, 153, 51),
    (136, 34, 85),
    (68, 170, 153),
    (221, 204, 119),
    (204, 102, 119),
];

/// The colour of the `i`th chip of the scenario.
pub fn chip_colour(i: usize) -> Rgb {
    CHIP_COLOURS[i % CHIP_COLOURS.len()]
}

/// A point that misses the SLO, whatever its price or chips.
pub const MISSES_SLO: Rgb = (205, 205, 205);

impl ChartModel {
    /// A point's fill: grey when it misses the SLO, else its price or its chips' colours
    /// (two for a mixed point, its halves).
    pub fn fills(&self, p: &PlotPoint) -> [Rgb; 2] {
        if !p.meets_slo {
            return [MISSES_SLO; 2];
        }
        match self.colour_by {
            ColourBy::Price => [colour_of(p.usd_per_mtok, self.colour); 2],
            ColourBy::Chip => p
                .chips
                .map(|i| self.chips.get(i).map_or(UNPRICED, |c| c.colour)),
        }
    }
}

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
        assert_eq!(labels, ["3", "10", "30", "100", "300", "1k", "3k"]);
        let narrow = AxisRange {
            lo: 3.0,
            hi: 90.0,
            scale: Scale::Log,
        };
        let labels: Vec<_> = narrow.ticks().into_iter().map(|t| t.label).collect();
        assert_eq!(labels, ["3", "5", "7", "10", "15", "20", "30", "50", "70"]);
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
    fn every_axis_gets_enough_ticks_and_not_too_many() {
        let mut seed = 0x9e37_79b9_7f4a_7c15_u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 11) as f64 / (1u64 << 53) as f64
        };
        for _ in 0..2000 {
            let lo = 10f64.powf(next() * 8.0 - 3.0);
            let hi = lo * (1.0 + next() * 1e4);
            let axis = AxisRange::covering([lo, hi]);
            let ticks = axis.ticks();
            assert!(
                (MIN_TICKS - 1..=MAX_LINEAR_TICKS).contains(&ticks.len()),
                "{axis:?}: {} ticks",
                ticks.len()
            );
            let (a, b) = axis.plot_range();
            assert!(ticks.iter().all(|t| t.at >= a && t.at <= b));
            assert!(ticks.windows(2).all(|w| w[0].at < w[1].at));
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
    fn colour_by_chip_gives_each_chip_its_own_colour_and_mixed_points_two() {
        let s = Scenario {
            colour_by: ColourBy::Chip,
            ..Scenario::default()
        };
        let r = explore(&s, Catalogue::builtin()).unwrap();
        let m = ChartModel::new(&r, &s, true, Catalogue::builtin());
        assert_eq!(m.chips.len(), s.chips.len());
        let mut colours: Vec<Rgb> = m.chips.iter().map(|c| c.colour).collect();
        colours.dedup();
        assert_eq!(colours.len(), s.chips.len());
        assert!(m
            .chips
            .iter()
            .all(|c| !c.name.is_empty() && c.colour != MISSES_SLO));
        assert_eq!(m.halves, Some(("prefill", "decode")));
        for p in &m.points {
            let point = &r.cloud[p.cloud_index];
            let [a, b] = m.fills(p);
            let first = &point.spec.pools[0].chip;
            assert_eq!(m.chips[p.chips[0]].id, *first);
            assert_eq!(a, m.chips[p.chips[0]].colour);
            assert_eq!(a == b, p.class != Class::Heterogeneous, "{}", point.label);
        }
        // Price mode: one colour per point, from its $/Mtok.
        let price = ChartModel::new(&r, &Scenario::default(), true, Catalogue::builtin());
        for p in &price.points {
            let [a, b] = price.fills(p);
            assert_eq!(a, b);
            assert_eq!(a, colour_of(p.usd_per_mtok, price.colour));
        }
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
            let s = Scenario {
                y_axis: y,
                ..Scenario::default()
            };
            let m = ChartModel::new(&r, &s, true, Catalogue::builtin());
            assert_eq!(m.points.len() + m.unplotted, r.cloud.len());
            let few = ChartModel::new(&r, &s, false, Catalogue::builtin());
            assert!(few.points.len() < m.points.len());
            let on_lines: usize = few.frontiers.iter().map(|f| f.points.len()).sum();
            assert_eq!(few.points.len(), on_lines);
            assert!(!m.points.is_empty());
            for p in &m.points {
                assert!(m.x.contains(p.x) && m.y.contains(p.y), "{p:?}");
            }
            assert!(m.x.contains(m.target));
            assert!(m.frontiers.iter().all(|f| !f.points.is_empty()));
            // Mixed deployments are drawn last, on top; points that miss the SLO under
            // those that meet it.
            let layers: Vec<(bool, u8)> = m
                .points
                .iter()
                .map(|p| (p.meets_slo, cloud::layer(p.class)))
                .collect();
            assert!(layers.windows(2).all(|w| w[0] <= w[1]));
        }
    }
}
