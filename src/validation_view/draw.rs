//! Draws a [`Scatter`] with plotters on any backend (the page's canvas, or a recording
//! backend in tests): the ±20% band, the diagonal, the grid with round log ticks, and
//! the points, circles for calibration and triangles for hold-out. Sizes are device
//! pixels, `scale` times the CSS size.

use super::scatter::{Scatter, BAND};
use crate::chart::frame::{frame_and_titles, Area, Failure, Frame, Pen, TickLabels, GRID, INK};
use disagg_engine::validation::Role;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

const BAND_FILL: RGBColor = RGBColor(222, 235, 247);
/// Calibration blue and hold-out orange (the Okabe-Ito pair, told apart without hue
/// too: by shape).
pub const CALIBRATION: RGBColor = RGBColor(0, 114, 178);
pub const HOLDOUT: RGBColor = RGBColor(213, 94, 0);

/// The CSS height of the scatter for a CSS width: square plot plus the axes' labels.
pub fn css_height(css_width: f64) -> f64 {
    (css_width * 0.8).clamp(300.0, 560.0)
}

pub fn draw<DB: DrawingBackend>(backend: DB, scatter: &Scatter, scale: f64) -> Result<(), String> {
    let root = backend.into_drawing_area();
    draw_on(&root, scatter, scale).map_err(|e| e.to_string())?;
    root.present().map_err(|e| e.to_string())
}

fn draw_on<DB: DrawingBackend>(
    root: &Area<DB>,
    scatter: &Scatter,
    scale: f64,
) -> Result<(), Failure<DB>> {
    let pen = Pen::new(scale);
    let s = pen.s;
    let px = |v: f64| pen.px(v);
    let font = |size: f64, colour: RGBColor| pen.font(size, colour);
    root.fill(&WHITE)?;
    let r = &scatter.range;
    let (a, b) = r.plot_range();
    let chart = ChartBuilder::on(root)
        .margin_top(px(16.0))
        .margin_right(px(16.0))
        .x_label_area_size(px(46.0))
        .y_label_area_size(px(62.0))
        .build_cartesian_2d(a..b, a..b)?;
    let plot = chart.plotting_area();
    let at = |x: f64, y: f64| chart.backend_coord(&(x, y));
    let log = |(x, y): (f64, f64)| (r.to_plot(x), r.to_plot(y));
    let (left, top) = at(a, b);
    let (right, bottom) = at(b, a);

    plot.draw(&Polygon::new(
        scatter.band().into_iter().map(log).collect::<Vec<_>>(),
        BAND_FILL.filled(),
    ))?;
    let grid = pen.stroke(&GRID, 1.0);
    let frame = Frame {
        left,
        top,
        right,
        bottom,
    };
    let mut labels = TickLabels::new();
    for t in r.ticks() {
        plot.draw(&PathElement::new(vec![(t.at, a), (t.at, b)], grid))?;
        plot.draw(&PathElement::new(vec![(a, t.at), (b, t.at)], grid))?;
        let (x, y) = at(t.at, t.at);
        labels.x(root, pen, frame, t.label.clone(), x)?;
        labels.y(root, pen, frame, t.label, y)?;
    }
    frame_and_titles(
        root,
        pen,
        frame,
        "measured (each point in its metric's unit), log scale".into(),
        "predicted, log scale".into(),
    )?;
    plot.draw(&PathElement::new(
        scatter.diagonal().into_iter().map(log).collect::<Vec<_>>(),
        pen.stroke(&INK, 1.5),
    ))?;

    // Hold-out over calibration: the honest figure stays on top.
    for role in [Role::Calibration, Role::Holdout] {
        for p in scatter.points.iter().filter(|p| p.role == role) {
            mark(
                root,
                role,
                at(r.to_plot(p.measured), r.to_plot(p.predicted)),
                s,
            )?;
        }
    }

    // The key, inside the plot's upper left corner (the band's lower right is empty
    // there: points above it are predicted 20% high).
    let keys = [
        (Some(Role::Calibration), "calibration".to_string()),
        (Some(Role::Holdout), "hold-out".to_string()),
        (None, format!("band: within ±{:.0}%", BAND * 100.0)),
    ];
    for (i, (role, label)) in keys.into_iter().enumerate() {
        let y = top + px(14.0 + 18.0 * i as f64);
        let x = left + px(14.0);
        match role {
            Some(role) => mark(root, role, (x, y), s)?,
            None => root.draw(&Rectangle::new(
                [(x - px(6.0), y - px(5.0)), (x + px(6.0), y + px(5.0))],
                BAND_FILL.filled(),
            ))?,
        }
        root.draw(&Text::new(
            label,
            (x + px(12.0), y),
            font(12.0, INK).pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
    }
    Ok(())
}

/// A point's mark: an open circle for calibration, a filled triangle for hold-out.
fn mark<DB: DrawingBackend>(
    root: &Area<DB>,
    role: Role,
    (x, y): (i32, i32),
    s: f64,
) -> Result<(), Failure<DB>> {
    let px = |v: f64| (v * s).round() as i32;
    match role {
        Role::Calibration => root.draw(&Circle::new(
            (x, y),
            px(4.5),
            ShapeStyle::from(&CALIBRATION).stroke_width(px(2.0).max(1) as u32),
        )),
        Role::Holdout => root.draw(&Polygon::new(
            vec![
                (x, y - px(5.5)),
                (x - px(5.0), y + px(4.0)),
                (x + px(5.0), y + px(4.0)),
            ],
            HOLDOUT.filled(),
        )),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::recorder::Recorder;
    use crate::validation_view::scatter::ScatterPoint;

    fn point(id: &str, measured: f64, predicted: f64, role: Role) -> ScatterPoint {
        ScatterPoint {
            id: id.into(),
            measured,
            predicted,
            role,
            metric: "tok/s per user",
        }
    }

    #[test]
    fn draws_the_band_each_point_by_role_and_the_key() {
        let points = vec![
            point("a", 10.0, 11.0, Role::Calibration),
            point("b", 100.0, 150.0, Role::Holdout),
            point("c", 1000.0, 700.0, Role::Holdout),
        ];
        let range = crate::validation_view::scatter::square_range(
            points.iter().flat_map(|p| [p.measured, p.predicted]),
        );
        let scatter = Scatter { points, range };
        let mut rec = Recorder::of_size(800, 640);
        draw(&mut rec, &scatter, 1.0).unwrap();
        let rgb = |c: RGBColor| (c.0, c.1, c.2);
        // The band, the key's band swatch is a rectangle; triangles for the two hold-out
        // points and the key's.
        assert_eq!(
            rec.polygons
                .iter()
                .filter(|c| **c == rgb(BAND_FILL))
                .count(),
            1
        );
        assert_eq!(
            rec.polygons.iter().filter(|c| **c == rgb(HOLDOUT)).count(),
            3
        );
        // Circles: the calibration point and the key's.
        assert_eq!(rec.circles, 2);
        for label in [
            "calibration",
            "hold-out",
            "predicted, log scale",
            "band: within ±20%",
        ] {
            assert!(
                rec.texts.iter().any(|t| t == label),
                "{label}: {:?}",
                rec.texts
            );
        }
        // Round log ticks label both axes.
        assert!(
            rec.texts.iter().filter(|t| *t == "100").count() == 2,
            "{:?}",
            rec.texts
        );
    }
}
