//! Draws a [`ChartModel`] with plotters on any backend: the page's canvas, or a
//! recording backend in tests. All sizes are in device pixels, `scale` times the CSS
//! size, so the chart stays crisp on HiDPI screens.

use super::{colour_of, ChartModel, Line, Rgb};
use disagg_engine::sweep::Class;
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// How to draw: device pixels per CSS pixel, and the points to ring.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Look {
    pub scale: f64,
    /// Index into [`ChartModel::points`].
    pub selected: Option<usize>,
    pub hovered: Option<usize>,
}

const INK: RGBColor = RGBColor(33, 37, 41);
const MUTED: RGBColor = RGBColor(90, 96, 104);
const GRID: RGBColor = RGBColor(226, 229, 233);
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

type Area<DB> = DrawingArea<DB, Shift>;
type Failure<DB> = DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>;

/// Draws the chart; returns each point's position in device pixels, in the order of
/// [`ChartModel::points`], for hit testing.
pub fn draw<DB: DrawingBackend>(
    backend: DB,
    model: &ChartModel,
    look: &Look,
) -> Result<Vec<(f64, f64)>, String> {
    let root = backend.into_drawing_area();
    let out = draw_on(&root, model, look).map_err(|e| e.to_string())?;
    root.present().map_err(|e| e.to_string())?;
    Ok(out)
}

fn draw_on<DB: DrawingBackend>(
    root: &Area<DB>,
    model: &ChartModel,
    look: &Look,
) -> Result<Vec<(f64, f64)>, Failure<DB>> {
    let s = if look.scale.is_finite() && look.scale > 0.0 {
        look.scale
    } else {
        1.0
    };
    let px = |v: f64| (v * s).round() as i32;
    let font = |size: f64, colour: RGBColor| {
        ("sans-serif", size * s)
            .into_font()
            .color(&colour)
            .pos(Pos::new(HPos::Left, VPos::Top))
    };
    root.fill(&WHITE)?;
    let (w, _) = root.dim_in_pixel();
    let side = px(104.0).min(w as i32 / 3).max(0) as u32;
    let (main, bar) = root.split_horizontally(w - side);

    let (x0, x1) = model.x.plot_range();
    let (y0, y1) = model.y.plot_range();
    let chart = ChartBuilder::on(&main)
        .margin_top(px(16.0))
        .margin_right(px(12.0))
        .x_label_area_size(px(46.0))
        .y_label_area_size(px(66.0))
        .build_cartesian_2d(x0..x1, y0..y1)?;
    let plot = chart.plotting_area();
    let at = |x: f64, y: f64| chart.backend_coord(&(x, y));
    let (left, top) = at(x0, y1);
    let (right, bottom) = at(x1, y0);

    // Grid and tick labels.
    let grid = ShapeStyle::from(&GRID).stroke_width(px(1.0).max(1) as u32);
    for t in model.x.ticks() {
        plot.draw(&PathElement::new(vec![(t.at, y0), (t.at, y1)], grid))?;
        let (x, _) = at(t.at, y0);
        root.draw(&Text::new(
            t.label,
            (x, bottom + px(6.0)),
            font(12.0, MUTED).pos(Pos::new(HPos::Center, VPos::Top)),
        ))?;
    }
    for t in model.y.ticks() {
        plot.draw(&PathElement::new(vec![(x0, t.at), (x1, t.at)], grid))?;
        let (_, y) = at(x0, t.at);
        root.draw(&Text::new(
            t.label,
            (left - px(6.0), y),
            font(12.0, MUTED).pos(Pos::new(HPos::Right, VPos::Center)),
        ))?;
    }
    root.draw(&Rectangle::new(
        [(left, top), (right, bottom)],
        ShapeStyle::from(&MUTED).stroke_width(px(1.0).max(1) as u32),
    ))?;
    let scale_note = |log: bool| if log { ", log scale" } else { "" };
    root.draw(&Text::new(
        format!(
            "{}{}",
            model.x_label,
            scale_note(model.x.scale == super::Scale::Log)
        ),
        ((left + right) / 2, bottom + px(26.0)),
        font(13.0, INK).pos(Pos::new(HPos::Center, VPos::Top)),
    ))?;
    root.draw(&Text::new(
        format!(
            "{}{}",
            model.y_label,
            scale_note(model.y.scale == super::Scale::Log)
        ),
        (px(6.0), (top + bottom) / 2),
        font(13.0, INK)
            .transform(FontTransform::Rotate270)
            .pos(Pos::new(HPos::Center, VPos::Top)),
    ))?;

    // The target interactivity.
    if model.x.contains(model.target) {
        let tx = model.x.to_plot(model.target);
        plot.draw(&PathElement::new(
            vec![(tx, y0), (tx, y1)],
            ShapeStyle::from(&MUTED).stroke_width(px(1.5).max(1) as u32),
        ))?;
        let (x, _) = at(tx, y1);
        root.draw(&Text::new(
            format!("target {} tok/s/user", crate::format::sig3(model.target)),
            (x + px(4.0), top + px(4.0)),
            font(11.0, MUTED),
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

    // Points: baseline squares, homogeneous circles, mixed diamonds.
    let outline = ShapeStyle::from(&INK).stroke_width(px(1.0).max(1) as u32);
    let mut positions = Vec::with_capacity(model.points.len());
    for p in &model.points {
        let c = at(model.x.to_plot(p.x), model.y.to_plot(p.y));
        positions.push((c.0 as f64, c.1 as f64));
        // A point that misses the SLO is grey, whatever its price.
        let fill = if p.meets_slo {
            rgb(colour_of(p.usd_per_mtok, model.colour)).filled()
        } else {
            RGBColor(205, 205, 205).filled()
        };
        marker(root, p.class, c, s, fill, outline)?;
    }
    for (index, width, size) in [(look.hovered, 1.5, 8.0), (look.selected, 2.5, 10.0)] {
        if let Some(&(x, y)) = index.and_then(|i| positions.get(i)) {
            root.draw(&Circle::new(
                (x as i32, y as i32),
                px(size),
                ShapeStyle::from(&INK).stroke_width(px(width).max(1) as u32),
            ))?;
        }
    }

    legend(root, (left + px(10.0), top + px(10.0)), s)?;
    colour_bar(&bar, (top, bottom), s, model)?;
    Ok(positions)
}

fn marker<DB: DrawingBackend>(
    root: &Area<DB>,
    class: Class,
    (x, y): (i32, i32),
    s: f64,
    fill: ShapeStyle,
    outline: ShapeStyle,
) -> Result<(), Failure<DB>> {
    let r = |v: f64| (v * s).round() as i32;
    match class {
        Class::Heterogeneous => {
            let d = r(6.0);
            let pts = vec![(x, y - d), (x + d, y), (x, y + d), (x - d, y)];
            root.draw(&Polygon::new(pts.clone(), fill))?;
            let mut ring = pts;
            ring.push((x, y - d));
            root.draw(&PathElement::new(ring, outline))?;
        }
        Class::Homogeneous => {
            root.draw(&Circle::new((x, y), r(4.5), fill))?;
            root.draw(&Circle::new((x, y), r(4.5), outline))?;
        }
        Class::Baseline => {
            let d = r(4.0);
            root.draw(&Rectangle::new([(x - d, y - d), (x + d, y + d)], fill))?;
            root.draw(&Rectangle::new(
                [(x - d, y - d), (x + d, y + d)],
                outline.stroke_width(r(2.0).max(1) as u32),
            ))?;
        }
    }
    Ok(())
}

fn legend<DB: DrawingBackend>(
    root: &Area<DB>,
    (x, y): (i32, i32),
    s: f64,
) -> Result<(), Failure<DB>> {
    let r = |v: f64| (v * s).round() as i32;
    let font = ("sans-serif", 12.0 * s)
        .into_font()
        .color(&INK)
        .pos(Pos::new(HPos::Left, VPos::Center));
    let row = r(18.0);
    root.draw(&Rectangle::new(
        [(x, y), (x + r(196.0), y + row * 5 + r(8.0))],
        RGBAColor(255, 255, 255, 0.85).filled(),
    ))?;
    let grey = RGBColor(200, 200, 200).filled();
    let outline = ShapeStyle::from(&INK).stroke_width(r(1.0).max(1) as u32);
    let rows: [(&str, Option<Class>, Option<Line>); 5] = [
        ("mixed split", Some(Class::Heterogeneous), None),
        ("single-kind split", Some(Class::Homogeneous), None),
        ("aggregated baseline", Some(Class::Baseline), None),
        (Line::Heterogeneous.name(), None, Some(Line::Heterogeneous)),
        (Line::Homogeneous.name(), None, Some(Line::Homogeneous)),
    ];
    for (i, (text, class, line)) in rows.into_iter().enumerate() {
        let cy = y + r(4.0) + row * i as i32 + row / 2;
        let cx = x + r(14.0);
        if let Some(c) = class {
            marker(root, c, (cx, cy), s, grey, outline)?;
        }
        if let Some(l) = line {
            root.draw(&PathElement::new(
                vec![(cx - r(8.0), cy), (cx + r(8.0), cy)],
                ShapeStyle::from(&line_colour(l)).stroke_width(r(2.5).max(1) as u32),
            ))?;
        }
        root.draw(&Text::new(text, (cx + r(16.0), cy), font.clone()))?;
    }
    Ok(())
}

fn colour_bar<DB: DrawingBackend>(
    bar: &Area<DB>,
    (top, bottom): (i32, i32),
    s: f64,
    model: &ChartModel,
) -> Result<(), Failure<DB>> {
    let r = |v: f64| (v * s).round() as i32;
    let font = |pos| ("sans-serif", 12.0 * s).into_font().color(&INK).pos(pos);
    bar.draw(&Text::new(
        "$/Mtok out",
        (r(12.0), top),
        font(Pos::new(HPos::Left, VPos::Top)),
    ))?;
    let Some((lo, hi)) = model.colour else {
        bar.draw(&Text::new(
            "no prices",
            (r(12.0), top + r(20.0)),
            font(Pos::new(HPos::Left, VPos::Top)),
        ))?;
        return Ok(());
    };
    let (y_top, y_bottom) = (top + r(22.0), bottom - r(4.0));
    let steps = 48;
    let span = (y_bottom - y_top).max(1);
    for i in 0..steps {
        let t0 = i as f64 / steps as f64;
        let t1 = (i + 1) as f64 / steps as f64;
        // Dear at the top, cheap at the bottom.
        let v = (hi.ln() + (lo.ln() - hi.ln()) * (t0 + t1) / 2.0).exp();
        let a = y_top + (span as f64 * t0) as i32;
        let b = y_top + (span as f64 * t1).ceil() as i32;
        bar.draw(&Rectangle::new(
            [(r(12.0), a), (r(28.0), b)],
            rgb(colour_of(Some(v), model.colour)).filled(),
        ))?;
    }
    bar.draw(&Text::new(
        format!("${}", crate::format::sig3(hi)),
        (r(32.0), y_top),
        font(Pos::new(HPos::Left, VPos::Top)),
    ))?;
    bar.draw(&Text::new(
        format!("${}", crate::format::sig3(lo)),
        (r(32.0), y_bottom),
        font(Pos::new(HPos::Left, VPos::Bottom)),
    ))?;
    bar.draw(&Text::new(
        "grey: no price",
        (r(12.0), y_bottom + r(10.0)),
        font(Pos::new(HPos::Left, VPos::Top)),
    ))?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::ChartModel;
    use crate::explore::explore;
    use crate::scenario::{Scenario, YAxis};
    use disagg_engine::disagg::Axis;
    use disagg_engine::Catalogue;
    use plotters_backend::{
        BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind,
    };

    /// Records the shapes plotters asks for instead of drawing them.
    #[derive(Default)]
    struct Recorder {
        circles: usize,
        polygons: usize,
        rects: usize,
        paths: usize,
        texts: Vec<String>,
        fills: Vec<(u8, u8, u8)>,
    }

    impl DrawingBackend for &mut Recorder {
        type ErrorType = std::fmt::Error;
        fn get_size(&self) -> (u32, u32) {
            (1600, 900)
        }
        fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
            Ok(())
        }
        fn present(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
            Ok(())
        }
        fn draw_pixel(
            &mut self,
            _: BackendCoord,
            _: BackendColor,
        ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
            Ok(())
        }
        fn draw_line<S: BackendStyle>(
            &mut self,
            _: BackendCoord,
            _: BackendCoord,
            _: &S,
        ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
            Ok(())
        }
        fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
            &mut self,
            _: I,
            _: &S,
        ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
            self.paths += 1;
            Ok(())
        }
        fn draw_rect<S: BackendStyle>(
            &mut self,
            _: BackendCoord,
            _: BackendCoord,
            _: &S,
            _: bool,
        ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
            self.rects += 1;
            Ok(())
        }
        fn draw_circle<S: BackendStyle>(
            &mut self,
            _: BackendCoord,
            _: u32,
            style: &S,
            fill: bool,
        ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
            if fill {
                self.circles += 1;
                self.fills.push(style.color().rgb);
            }
            Ok(())
        }
        fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
            &mut self,
            _: I,
            style: &S,
        ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
            self.polygons += 1;
            self.fills.push(style.color().rgb);
            Ok(())
        }
        fn draw_text<T: BackendTextStyle>(
            &mut self,
            text: &str,
            _: &T,
            _: BackendCoord,
        ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
            self.texts.push(text.to_string());
            Ok(())
        }
        fn estimate_text_size<T: BackendTextStyle>(
            &self,
            text: &str,
            _: &T,
        ) -> Result<(u32, u32), DrawingErrorKind<Self::ErrorType>> {
            Ok((text.len() as u32 * 7, 12))
        }
    }

    fn record(s: &Scenario, y: YAxis) -> (ChartModel, Recorder, Vec<(f64, f64)>) {
        let r = explore(s, Catalogue::builtin()).unwrap();
        let m = ChartModel::new(&r, y, true);
        let mut rec = Recorder::default();
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
        assert_eq!(rec.polygons, count(Class::Heterogeneous) + 1);
        assert_eq!(rec.circles, count(Class::Homogeneous) + 1);
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
