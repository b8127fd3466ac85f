//! Draws a [`ChartModel`] with plotters on any backend: the page's canvas, or a
//! recording backend in tests. All sizes are in device pixels, `scale` times the CSS
//! size, so the chart stays crisp on HiDPI screens.

use super::frame::{frame_and_titles, Area, Failure, Frame, Pen, TickLabels, GRID, INK, MUTED};
use super::legend::{self, Mark, CHAR, MARK};
use super::{colour_of, AxisRange, ChartModel, Line, Rgb, Scale};
use disagg_engine::sweep::Class;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

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

fn rgb(c: Rgb) -> RGBColor {
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

/// The key's band under the plot, and the key laid out in it.
fn key_band<DB: DrawingBackend>(
    root: &Area<DB>,
    model: &ChartModel,
    pen: Pen,
) -> (Area<DB>, Area<DB>, legend::Key) {
    let (w, h) = root.dim_in_pixel();
    let key = legend::key(model, w as f64 / pen.s);
    let band = (pen.px(key.height).max(0) as u32).min(h / 2);
    let (main, under) = root.split_vertically(h - band);
    (main, under, key)
}

/// Everything under the points; returns each point's position.
fn frame_on<DB: DrawingBackend>(
    root: &Area<DB>,
    model: &ChartModel,
    look: &Look,
) -> Result<Vec<(i32, i32)>, Failure<DB>> {
    let pen = Pen::new(look.scale);
    let px = |v: f64| pen.px(v);
    let font = |size: f64, colour: RGBColor| pen.font(size, colour);
    root.fill(&WHITE)?;
    let (main, _, _) = key_band(root, model, pen);

    let (x0, x1) = model.x.plot_range();
    let (y0, y1) = model.y.plot_range();
    let chart = ChartBuilder::on(&main)
        .margin_top(px(16.0))
        .margin_right(px(16.0))
        .x_label_area_size(px(46.0))
        .y_label_area_size(px(66.0))
        .build_cartesian_2d(x0..x1, y0..y1)?;
    let plot = chart.plotting_area();
    let at = |x: f64, y: f64| chart.backend_coord(&(x, y));
    let (left, top) = at(x0, y1);
    let (right, bottom) = at(x1, y0);

    // Grid and tick labels; a label that would touch the last one drawn is left out
    // (its grid line stays).
    let grid = pen.stroke(&GRID, 1.0);
    let frame = Frame {
        left,
        top,
        right,
        bottom,
    };
    let mut labels = TickLabels::new();
    for t in model.x.ticks() {
        plot.draw(&PathElement::new(vec![(t.at, y0), (t.at, y1)], grid))?;
        labels.x(root, pen, frame, t.label, at(t.at, y0).0)?;
    }
    for t in model.y.ticks() {
        plot.draw(&PathElement::new(vec![(x0, t.at), (x1, t.at)], grid))?;
        labels.y(root, pen, frame, t.label, at(x0, t.at).1)?;
    }
    let scale_note = |log: bool| if log { ", log scale" } else { "" };
    frame_and_titles(
        root,
        pen,
        frame,
        format!(
            "{}{}",
            model.x_label,
            scale_note(model.x.scale == super::Scale::Log)
        ),
        format!(
            "{}{}",
            model.y_label,
            scale_note(model.y.scale == super::Scale::Log)
        ),
    )?;

    // The target interactivity.
    if model.x.contains(model.target) {
        let tx = model.x.to_plot(model.target);
        plot.draw(&PathElement::new(
            vec![(tx, y0), (tx, y1)],
            ShapeStyle::from(&MUTED).stroke_width(px(1.5).max(1) as u32),
        ))?;
        let (x, _) = at(tx, y1);
        let label = format!("target {} tok/s/user", crate::format::sig3(model.target));
        // Right of the line when it fits inside the plot, else left of it.
        let width = px(label.chars().count() as f64 * CHAR * 11.0 / 12.0);
        let (anchor, at_x) = if x + px(4.0) + width <= right {
            (HPos::Left, x + px(4.0))
        } else {
            (HPos::Right, x - px(4.0))
        };
        root.draw(&Text::new(
            label,
            (at_x, top + px(4.0)),
            font(11.0, MUTED).pos(Pos::new(anchor, VPos::Top)),
        ))?;
    }

    // Frontiers.
    for f in &model.frontiers {
        let pts: Vec<(f64, f64)> = f
            .points
            .iter()
            .map(|&(x, y)| (model.x.to_plot(x), model.y.to_plot(y)))
            .collect();
        plot.draw(&PathElement::new(
            pts,
            ShapeStyle::from(&line_colour(f.line)).stroke_width(px(2.5).max(1) as u32),
        ))?;
    }

    // Pinned scenarios' frontiers, dashed, under the points.
    for pin in &model.pins {
        let pts: Vec<(f64, f64)> = pin
            .points
            .iter()
            .map(|&(x, y)| (model.x.to_plot(x), model.y.to_plot(y)))
            .collect();
        let (dash, gap) = pin.dash();
        plot.draw(&DashedPathElement::new(
            pts,
            px(dash).max(1),
            px(gap).max(1),
            ShapeStyle::from(&rgb(pin.colour())).stroke_width(px(2.0).max(1) as u32),
        ))?;
    }

    // Every point's place.
    Ok(model
        .points
        .iter()
        .map(|p| at(model.x.to_plot(p.x), model.y.to_plot(p.y)))
        .collect())
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
    let outline = (model.points.len() <= DENSE)
        .then(|| ShapeStyle::from(&INK).stroke_width(px(1.0).max(1) as u32));
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

/// A point's mark; `fill` holds the colours of its left and right halves (the same
/// twice but for a mixed point coloured by chip).
fn marker<DB: DrawingBackend>(
    root: &Area<DB>,
    class: Class,
    (x, y): (i32, i32),
    s: f64,
    [fill, right]: [ShapeStyle; 2],
    outline: Option<ShapeStyle>,
) -> Result<(), Failure<DB>> {
    fills(root, class, (x, y), s, [fill, right])?;
    match outline {
        Some(outline) => outline_of(root, class, (x, y), s, outline),
        None => Ok(()),
    }
}

/// A mark's fill: a mixed point's two halves when they differ.
fn fills<DB: DrawingBackend>(
    root: &Area<DB>,
    class: Class,
    (x, y): (i32, i32),
    s: f64,
    [fill, right]: [ShapeStyle; 2],
) -> Result<(), Failure<DB>> {
    let r = |v: f64| (v * s).round() as i32;
    match class {
        Class::Heterogeneous => {
            let d = r(6.0);
            if fill.color == right.color {
                root.draw(&Polygon::new(diamond((x, y), d), fill))?;
            } else {
                root.draw(&Polygon::new(
                    vec![(x, y - d), (x, y + d), (x - d, y)],
                    fill,
                ))?;
                root.draw(&Polygon::new(
                    vec![(x, y - d), (x + d, y), (x, y + d)],
                    right,
                ))?;
            }
        }
        Class::Homogeneous => root.draw(&Circle::new((x, y), r(4.5), fill))?,
        Class::Baseline => {
            let d = r(4.0);
            root.draw(&Rectangle::new([(x - d, y - d), (x + d, y + d)], fill))?
        }
    }
    Ok(())
}

/// A mark's outline (heavier on the baseline's square).
fn outline_of<DB: DrawingBackend>(
    root: &Area<DB>,
    class: Class,
    (x, y): (i32, i32),
    s: f64,
    outline: ShapeStyle,
) -> Result<(), Failure<DB>> {
    let r = |v: f64| (v * s).round() as i32;
    match class {
        Class::Heterogeneous => {
            let mut ring = diamond((x, y), r(6.0));
            ring.push((x, y - r(6.0)));
            root.draw(&PathElement::new(ring, outline))?;
        }
        Class::Homogeneous => root.draw(&Circle::new((x, y), r(4.5), outline))?,
        Class::Baseline => {
            let d = r(4.0);
            root.draw(&Rectangle::new(
                [(x - d, y - d), (x + d, y + d)],
                outline.stroke_width(r(2.0).max(1) as u32),
            ))?
        }
    }
    Ok(())
}

fn diamond((x, y): (i32, i32), d: i32) -> Vec<(i32, i32)> {
    vec![(x, y - d), (x + d, y), (x, y + d), (x - d, y)]
}

/// Above this many points the marks are drawn without outlines: in so dense a cloud
/// the outlines merge into a dark mass, and they double the drawing time (the page's
/// largest sweep draws about 6,000 points).
pub const DENSE: usize = 2500;

/// The key under the plot, as [`legend::key`] placed it.
fn draw_key<DB: DrawingBackend>(
    area: &Area<DB>,
    key: &legend::Key,
    s: f64,
    model: &ChartModel,
) -> Result<(), Failure<DB>> {
    let r = |v: f64| (v * s).round() as i32;
    let font = |pos| ("sans-serif", 12.0 * s).into_font().color(&INK).pos(pos);
    let outline = ShapeStyle::from(&INK).stroke_width(r(1.0).max(1) as u32);
    let grey = RGBColor(200, 200, 200).filled();
    for placed in &key.entries {
        let (x, y) = (placed.x, placed.y);
        let centre = (r(x + MARK / 2.0 - 2.0), r(y + legend::ROW / 2.0));
        let text_at = (r(x + MARK), r(y + legend::ROW / 2.0));
        let text = placed.entry.text.as_str();
        match placed.entry.mark {
            Mark::Shape(class) => marker(area, class, centre, s, [grey, grey], Some(outline))?,
            Mark::Line(line) => area
                .draw(&PathElement::new(
                    vec![(centre.0 - r(9.0), centre.1), (centre.0 + r(9.0), centre.1)],
                    ShapeStyle::from(&line_colour(line)).stroke_width(r(2.5).max(1) as u32),
                ))
                .map(|_| ())?,
            Mark::Dashed(c, (dash, gap)) => area
                .draw(&DashedPathElement::new(
                    vec![
                        (centre.0 - r(10.0), centre.1),
                        (centre.0 + r(10.0), centre.1),
                    ],
                    r(dash).max(1),
                    r(gap).max(1),
                    ShapeStyle::from(&rgb(c)).stroke_width(r(2.0).max(1) as u32),
                ))
                .map(|_| ())?,
            Mark::Swatch(c) => swatch(area, centre, s, [c, c], outline)?,
            Mark::Split(a, b) => marker(
                area,
                Class::Heterogeneous,
                centre,
                s,
                [rgb(a).filled(), rgb(b).filled()],
                Some(outline),
            )?,
            Mark::PriceBar { lo, hi } => {
                price_bar(area, (x, y), text, (lo, hi), s, model, key_width(area, s))?;
                continue;
            }
        }
        area.draw(&Text::new(
            text,
            text_at,
            font(Pos::new(HPos::Left, VPos::Center)),
        ))?;
    }
    Ok(())
}

fn key_width<DB: DrawingBackend>(area: &Area<DB>, s: f64) -> f64 {
    area.dim_in_pixel().0 as f64 / s
}

fn swatch<DB: DrawingBackend>(
    area: &Area<DB>,
    (x, y): (i32, i32),
    s: f64,
    [a, _]: [Rgb; 2],
    outline: ShapeStyle,
) -> Result<(), Failure<DB>> {
    let d = (5.0 * s).round() as i32;
    let corners = [(x - d, y - d), (x + d, y + d)];
    area.draw(&Rectangle::new(corners, rgb(a).filled()))?;
    area.draw(&Rectangle::new(corners, outline))?;
    Ok(())
}

/// The $/Mtok scale: its title, a bar cheap (left) to dear (right) and round prices
/// labelled along its length (the ends when no round price falls inside).
fn price_bar<DB: DrawingBackend>(
    area: &Area<DB>,
    (x, y): (f64, f64),
    title: &str,
    (lo, hi): (f64, f64),
    s: f64,
    model: &ChartModel,
    width: f64,
) -> Result<(), Failure<DB>> {
    let r = |v: f64| (v * s).round() as i32;
    let font = |pos| ("sans-serif", 12.0 * s).into_font().color(&INK).pos(pos);
    area.draw(&Text::new(
        title,
        (r(x), r(y + 9.0)),
        font(Pos::new(HPos::Left, VPos::Center)),
    ))?;
    let (start, length) = legend::price_bar_span(title, width);
    let (bx, top, bottom) = (x + start, y + 3.0, y + 15.0);
    let scale = AxisRange {
        lo,
        hi: hi.max(lo),
        scale: Scale::Log,
    };
    let at = |v: f64| {
        let (a, b) = scale.plot_range();
        let t = if b > a {
            (scale.to_plot(v) - a) / (b - a)
        } else {
            0.0
        };
        bx + length * t.clamp(0.0, 1.0)
    };
    let steps = 48;
    for i in 0..steps {
        let (t0, t1) = (i as f64 / steps as f64, (i + 1) as f64 / steps as f64);
        let v = (lo.ln() + (hi.ln() - lo.ln()) * (t0 + t1) / 2.0).exp();
        area.draw(&Rectangle::new(
            [
                (r(bx + length * t0), r(top)),
                (r(bx + length * t1).max(r(bx + length * t0) + 1), r(bottom)),
            ],
            rgb(colour_of(Some(v), model.colour)).filled(),
        ))?;
    }
    let mut labels: Vec<(f64, f64)> = scale
        .ticks()
        .into_iter()
        .map(|t| 10f64.powf(t.at))
        .map(|v| (at(v), v))
        .collect();
    if labels.len() < 2 {
        labels = vec![(at(lo), lo), (at(hi), hi)];
        labels.dedup_by(|a, b| (a.0 - b.0).abs() < 1.0);
    }
    let mut free_from = f64::NEG_INFINITY;
    for (px_at, v) in labels {
        let text = format!("${}", super::compact(v));
        let half = text.chars().count() as f64 * CHAR / 2.0;
        if px_at - half < free_from {
            continue;
        }
        free_from = px_at + half + 6.0;
        area.draw(&PathElement::new(
            vec![(r(px_at), r(bottom)), (r(px_at), r(bottom + 3.0))],
            ShapeStyle::from(&INK).stroke_width(r(1.0).max(1) as u32),
        ))?;
        area.draw(&Text::new(
            text,
            (r(px_at), r(bottom + 5.0)),
            font(Pos::new(HPos::Center, VPos::Top)),
        ))?;
    }
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
    use disagg_engine::Catalogue;

    fn record(s: &Scenario, y: YAxis) -> (ChartModel, Recorder, Vec<(f64, f64)>) {
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

    #[test]
    fn colour_by_chip_splits_mixed_points_and_names_the_chips_under_the_plot() {
        let s = Scenario {
            colour_by: crate::scenario::ColourBy::Chip,
            ..Scenario::default()
        };
        let (m, rec, _) = record(&s, YAxis::TokSPerChip);
        let mixed = m
            .points
            .iter()
            .filter(|p| p.class == Class::Heterogeneous)
            .count();
        // Two halves per mixed point, the shape key's diamond and the halves' key.
        assert_eq!(rec.polygons.len(), 2 * mixed + 1 + 2);
        for chip in &m.chips {
            assert!(
                rec.texts.contains(&chip.name),
                "no {} in {:?}",
                chip.name,
                rec.texts
            );
        }
        assert!(!rec.texts.iter().any(|t| t.starts_with('$')));
        let (_, price, _) = record(&Scenario::default(), YAxis::TokSPerChip);
        // The price scale is labelled along its length, not only at its ends.
        let prices = price.texts.iter().filter(|t| t.starts_with('$')).count();
        assert!(prices >= 3, "{:?}", price.texts);
    }

    #[test]
    fn a_dense_cloud_is_drawn_without_outlines() {
        let (mut m, _, _) = record(&Scenario::default(), YAxis::TokSPerChip);
        let one = m.points.clone();
        while m.points.len() <= DENSE {
            m.points.extend(one.iter().cloned());
        }
        let circles = m
            .points
            .iter()
            .filter(|p| p.class == Class::Homogeneous)
            .count();
        let mut rec = Recorder::of_size(1600, 900);
        let look = Look {
            scale: 1.0,
            ..Look::default()
        };
        let pos = draw(&mut rec, &m, &look).unwrap();
        assert_eq!(pos.len(), m.points.len());
        // Every mark filled (the key's circle too), and no diamond outline drawn: the
        // paths left are the grid, frontiers, target, ticks and the key's.
        assert_eq!(rec.filled_circles, circles + 1);
        assert!(rec.paths < 100, "{} paths", rec.paths);
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
