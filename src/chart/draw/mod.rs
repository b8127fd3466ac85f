//! Draws a [`ChartModel`] with plotters on any backend: the page's canvas, or a
//! recording backend in tests. All sizes are in device pixels, `scale` times the CSS
//! size, so the chart stays crisp on HiDPI screens.
//!
//! This file holds the ways in ([`draw`], the hover ring) and the drawing-in-parts
//! scheme ([`Parts`], [`first_part`], [`next_part`]): the one order of calls that the
//! whole drawing and the parts share. What each part draws lives beside it:
//! `backdrop.rs` everything under the points (and where each point goes), `marks.rs`
//! a point's mark, `key.rs` the key under the plot.

mod backdrop;
mod key;
mod marks;

use super::frame::{Area, Failure, Pen, INK};
use super::{ChartModel, Line, Rgb};
use backdrop::{frame_on, key_band};
use key::draw_key;
pub use marks::DENSE;
use marks::{marker, outline};
use plotters::prelude::*;

/// How to draw: device pixels per CSS pixel, and the point to ring. (The hovered
/// point's ring is drawn apart, by [`hover_ring`], so that hovering never redraws
/// the chart.)
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Look {
    pub scale: f64,
    /// Index into [`ChartModel::points`].
    pub selected: Option<usize>,
}

/// The ring around the hovered point at `at` (device pixels), alone, on a transparent
/// layer over the chart.
pub fn hover_ring<DB: DrawingBackend>(
    backend: DB,
    at: (f64, f64),
    scale: f64,
) -> Result<(), String> {
    let root = backend.into_drawing_area();
    let s = if scale.is_finite() && scale > 0.0 {
        scale
    } else {
        1.0
    };
    root.draw(&Circle::new(
        (at.0 as i32, at.1 as i32),
        (8.0 * s).round() as i32,
        ShapeStyle::from(&INK).stroke_width((1.5 * s).round().max(1.0) as u32),
    ))
    .map_err(|e| e.to_string())?;
    root.present().map_err(|e| e.to_string())
}

const HOMOGENEOUS_LINE: RGBColor = RGBColor(33, 37, 41);
const HETEROGENEOUS_LINE: RGBColor = RGBColor(136, 34, 170);

pub(super) fn rgb(c: Rgb) -> RGBColor {
    RGBColor(c.0, c.1, c.2)
}

pub fn line_colour(line: Line) -> RGBColor {
    match line {
        Line::Homogeneous => HOMOGENEOUS_LINE,
        Line::Heterogeneous => HETEROGENEOUS_LINE,
    }
}

/// Draws the chart; returns each point's position in device pixels, in the order of
/// [`ChartModel::points`], for hit testing.
pub fn draw<DB: DrawingBackend>(
    backend: DB,
    model: &ChartModel,
    look: &Look,
) -> Result<Vec<(f64, f64)>, String> {
    first_part(backend, model, look, usize::MAX).map(|parts| parts.positions())
}

/// A chart drawn in parts, so that a large cloud never holds the page for long:
/// [`first_part`] draws the background, grid, frame, target, frontiers and pinned
/// lines and places every point; each [`next_part`] draws the next points' marks; the
/// part that draws the last mark also draws the selected point's ring and the key.
/// Together the parts make the very calls [`draw`] makes, in the same order.
#[derive(Clone, Debug, PartialEq)]
pub struct Parts {
    /// Each point's position in device pixels, in the order of [`ChartModel::points`].
    at: Vec<(i32, i32)>,
    /// Marks drawn so far (the first points).
    drawn: usize,
    finished: bool,
}

impl Parts {
    /// Each point's position in device pixels, for hit testing: all of them from the
    /// first part on.
    pub fn positions(&self) -> Vec<(f64, f64)> {
        self.at.iter().map(|&(x, y)| (x as f64, y as f64)).collect()
    }

    /// Marks drawn so far.
    pub fn drawn(&self) -> usize {
        self.drawn
    }

    /// Whether the chart is whole: every mark, the ring and the key drawn.
    pub fn finished(&self) -> bool {
        self.finished
    }
}

/// The chart up to its first `marks` points' marks (all of it when `marks` reaches
/// the number of points).
pub fn first_part<DB: DrawingBackend>(
    backend: DB,
    model: &ChartModel,
    look: &Look,
    marks: usize,
) -> Result<Parts, String> {
    let root = backend.into_drawing_area();
    let at = frame_on(&root, model, look).map_err(|e| e.to_string())?;
    let mut parts = Parts {
        at,
        drawn: 0,
        finished: false,
    };
    marks_on(&root, model, look, &mut parts, marks).map_err(|e| e.to_string())?;
    root.present().map_err(|e| e.to_string())?;
    Ok(parts)
}

/// The next `marks` points' marks of a chart begun by [`first_part`] on the same
/// canvas, and its end once the last is drawn. A finished chart draws nothing more.
pub fn next_part<DB: DrawingBackend>(
    backend: DB,
    model: &ChartModel,
    look: &Look,
    parts: &mut Parts,
    marks: usize,
) -> Result<(), String> {
    if parts.finished {
        return Ok(());
    }
    let root = backend.into_drawing_area();
    marks_on(&root, model, look, parts, marks).map_err(|e| e.to_string())?;
    root.present().map_err(|e| e.to_string())
}

/// The next `marks` points' marks (baseline squares, homogeneous circles, mixed
/// diamonds), then, after the last, the selected point's ring and the key.
fn marks_on<DB: DrawingBackend>(
    root: &Area<DB>,
    model: &ChartModel,
    look: &Look,
    parts: &mut Parts,
    marks: usize,
) -> Result<(), Failure<DB>> {
    let pen = Pen::new(look.scale);
    let (s, px) = (pen.s, |v: f64| pen.px(v));
    let outline = outline(model, pen);
    let end = parts.drawn.saturating_add(marks).min(model.points.len());
    let from = parts.drawn.min(end);
    for (p, &c) in model.points[from..end].iter().zip(&parts.at[from..end]) {
        let [a, b] = model.fills(p);
        marker(
            root,
            p.class,
            c,
            s,
            [rgb(a).filled(), rgb(b).filled()],
            outline,
        )?;
        parts.drawn += 1;
    }
    if parts.drawn < model.points.len() {
        return Ok(());
    }
    if let Some(&(x, y)) = look.selected.and_then(|i| parts.at.get(i)) {
        root.draw(&Circle::new(
            (x, y),
            px(10.0),
            ShapeStyle::from(&INK).stroke_width(px(2.5).max(1) as u32),
        ))?;
    }
    let (_, under, key) = key_band(root, model, pen);
    draw_key(&under, &key, s, model)?;
    parts.finished = true;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::recorder::Recorder;
    use crate::chart::ChartModel;
    use crate::explore::explore;
    use crate::scenario::{Scenario, YAxis};
    use disagg_engine::disagg::Axis;
    use disagg_engine::sweep::Class;
    use disagg_engine::Catalogue;

    /// The chart of the default sweep as `s` shows it on y axis `y`, drawn whole at
    /// twice the CSS size: the model, the recording and each point's position.
    pub(super) fn record(s: &Scenario, y: YAxis) -> (ChartModel, Recorder, Vec<(f64, f64)>) {
        let r = explore(s, Catalogue::builtin()).unwrap();
        let shown = Scenario {
            y_axis: y,
            ..s.clone()
        };
        let m = ChartModel::new(&r, &shown, true, Catalogue::builtin());
        let mut rec = Recorder::of_size(1600, 900);
        let look = Look {
            scale: 2.0,
            ..Look::default()
        };
        let pos = draw(&mut rec, &m, &look).unwrap();
        (m, rec, pos)
    }

    #[test]
    fn every_point_is_drawn_once_with_its_shape_inside_the_canvas() {
        let (m, rec, pos) = record(&Scenario::default(), YAxis::TokSPerChip);
        assert_eq!(pos.len(), m.points.len());
        let count = |c: Class| m.points.iter().filter(|p| p.class == c).count();
        // One legend marker per shape besides the points themselves.
        assert_eq!(rec.polygons.len(), count(Class::Heterogeneous) + 1);
        assert_eq!(rec.filled_circles, count(Class::Homogeneous) + 1);
        assert!(rec.rects > count(Class::Baseline));
        // Diamond outlines, grid, frontiers, target, legend lines.
        assert!(rec.paths > count(Class::Heterogeneous) + 2);
        for (x, y) in pos {
            assert!((0.0..1600.0).contains(&x) && (0.0..900.0).contains(&y));
        }
        for needle in [
            "target",
            "tok/s per user",
            "output tok/s per chip",
            "$/Mtok out",
        ] {
            assert!(
                rec.texts.iter().any(|t| t.contains(needle)),
                "no text with {needle}: {:?}",
                rec.texts
            );
        }
    }

    /// Draws `m` in parts of `first` and then `each` marks; returns the recording,
    /// the positions after the first part and the number of parts.
    fn in_parts(
        m: &ChartModel,
        look: &Look,
        first: usize,
        each: usize,
    ) -> (Recorder, Vec<(f64, f64)>, usize) {
        let mut rec = Recorder::of_size(1600, 900);
        let mut parts = first_part(&mut rec, m, look, first).unwrap();
        let positions = parts.positions();
        let mut count = 1;
        while !parts.finished() {
            let before = parts.drawn();
            next_part(&mut rec, m, look, &mut parts, each).unwrap();
            assert!(parts.drawn() > before, "a part drew nothing");
            count += 1;
        }
        assert_eq!(parts.drawn(), m.points.len());
        (rec, positions, count)
    }

    #[test]
    fn a_chart_drawn_in_parts_makes_the_calls_of_the_whole_in_its_order() {
        let chip = Scenario {
            colour_by: crate::scenario::ColourBy::Chip,
            ..Scenario::default()
        };
        let (price, _, _) = record(&Scenario::default(), YAxis::TokSPerChip);
        let (split, _, _) = record(&chip, YAxis::TokSPerChip);
        let mut dense = price.clone();
        while dense.points.len() <= DENSE {
            dense.points.extend(price.points.iter().cloned());
        }
        let empty = ChartModel {
            points: Vec::new(),
            ..price.clone()
        };
        for (m, selected) in [
            (&price, None),
            (&split, Some(3)),
            (&dense, Some(0)),
            (&empty, None),
        ] {
            let look = Look {
                scale: 2.0,
                selected,
            };
            let mut whole = Recorder::of_size(1600, 900);
            let positions = draw(&mut whole, m, &look).unwrap();
            let n = m.points.len();
            for (first, each) in [
                (1, 1),
                (0, 7),
                (100, 100),
                (n.saturating_sub(1), 1),
                (n, 1),
                (n + 5, 9),
            ] {
                let (rec, at, count) = in_parts(m, &look, first, each);
                assert_eq!(rec.log, whole.log, "parts of {first} then {each}");
                assert_eq!(at, positions, "every point placed by the first part");
                let rest = n.saturating_sub(first);
                assert_eq!(
                    count,
                    1 + rest.div_ceil(each),
                    "parts of {first} then {each}"
                );
            }
        }
        // Only the part that draws the last mark draws the key.
        let look = Look {
            scale: 2.0,
            ..Look::default()
        };
        let mut rec = Recorder::of_size(1600, 900);
        let mut parts = first_part(&mut rec, &price, &look, price.points.len() - 1).unwrap();
        assert!(!rec.texts.iter().any(|t| t.contains("$/Mtok out")));
        next_part(&mut rec, &price, &look, &mut parts, usize::MAX).unwrap();
        assert!(parts.finished() && rec.texts.iter().any(|t| t.contains("$/Mtok out")));
        // A finished chart draws nothing more.
        let calls = rec.log.len();
        next_part(&mut rec, &price, &look, &mut parts, 10).unwrap();
        assert_eq!(rec.log.len(), calls);
    }

    /// A published measurement is a cross and its word on the chart and in its key, the
    /// axes widened to hold it; on the per-dollar axis it is left out (a measurement has no
    /// price), and the description says where it is.
    #[test]
    fn a_measured_point_is_a_cross_inside_the_axes() {
        use crate::chart::MeasuredMark;
        let (m, plain, _) = record(&Scenario::default(), YAxis::TokSPerChip);
        let far = MeasuredMark {
            x: m.x.hi * 3.0,
            y: m.y.hi * 2.0,
            rows: "X01a, X01b".into(),
        };
        let marked = m
            .clone()
            .with_measured(Some(far.clone()), YAxis::TokSPerChip);
        assert!(marked.x.contains(far.x) && marked.y.contains(far.y));
        let mut rec = Recorder::of_size(1600, 900);
        let look = Look {
            scale: 2.0,
            ..Look::default()
        };
        draw(&mut rec, &marked, &look).unwrap();
        assert!(rec.texts.iter().any(|t| t == "measured"));
        assert!(!plain.texts.iter().any(|t| t == "measured"));
        // The key names it with a cross of its own.
        assert!(rec.texts.iter().any(|t| t == "measured (rows X01a, X01b)"));
        // The same axes without the mark: two strokes fewer on the plot, two in the key.
        let mut unmarked = Recorder::of_size(1600, 900);
        let same_axes = ChartModel {
            measured: None,
            ..marked.clone()
        };
        draw(&mut unmarked, &same_axes, &look).unwrap();
        assert_eq!(rec.paths, unmarked.paths + 4);
        let r = explore(&Scenario::default(), Catalogue::builtin()).unwrap();
        let text = crate::chart::describe::describe(&marked, &r);
        assert!(
            text.contains("A cross marks the published measurement") && text.contains("X01a, X01b"),
            "{text}"
        );
        assert_eq!(m.clone().with_measured(Some(far), YAxis::TokSPerUsdHour), m);
    }

    #[test]
    fn the_drawing_follows_the_scenario() {
        let (_, a, _) = record(&Scenario::default(), YAxis::TokSPerChip);
        let spec = Scenario {
            axis: Axis::Speculative,
            ..Scenario::default()
        };
        let (_, b, _) = record(&spec, YAxis::TokSPerUsdHour);
        assert_ne!(a.fills, b.fills);
        assert!(b.texts.iter().any(|t| t.contains("per $/hour")));
    }
}
