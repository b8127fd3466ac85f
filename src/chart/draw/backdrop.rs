//! Everything under the points: the background, the key's band kept free under the
//! plot, grid and tick labels, the frame and axis titles, the target line, the frontiers
//! and the pinned scenarios' dashed lines; and each point's place in device pixels. The
//! first part of a drawing draws all of it, whatever number of marks follows.

use super::{line_colour, rgb, Look};
use crate::chart::frame::{frame_and_titles, Area, Failure, Frame, Pen, TickLabels, GRID, MUTED};
use crate::chart::legend::{self, CHAR};
use crate::chart::{ChartModel, Scale};
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// The key's band under the plot, and the key laid out in it.
pub(super) fn key_band<DB: DrawingBackend>(
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
pub(super) fn frame_on<DB: DrawingBackend>(
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
            scale_note(model.x.scale == Scale::Log)
        ),
        format!(
            "{}{}",
            model.y_label,
            scale_note(model.y.scale == Scale::Log)
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

    // A published measurement: a cross and its word, over the lines.
    if let Some(m) = &model.measured {
        let (cx, cy) = at(model.x.to_plot(m.x), model.y.to_plot(m.y));
        let r = px(6.0);
        let ink = ShapeStyle::from(&BLACK).stroke_width(px(2.0).max(1) as u32);
        root.draw(&PathElement::new(
            vec![(cx - r, cy - r), (cx + r, cy + r)],
            ink,
        ))?;
        root.draw(&PathElement::new(
            vec![(cx - r, cy + r), (cx + r, cy - r)],
            ink,
        ))?;
        root.draw(&Text::new(
            "measured",
            (cx + r + px(3.0), cy),
            font(11.0, BLACK).pos(Pos::new(HPos::Left, VPos::Center)),
        ))?;
    }

    // Every point's place.
    Ok(model
        .points
        .iter()
        .map(|p| at(model.x.to_plot(p.x), model.y.to_plot(p.y)))
        .collect())
}
