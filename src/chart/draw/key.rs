//! The key under the plot, drawn where [`legend::key`] laid it out: each entry's mark
//! (a shape, a line, a dashed pin line, a chip's swatch or a mixed point's halves) and
//! its text, and the $/Mtok scale as a bar labelled at round prices. The last part of a
//! drawing draws it.

use super::marks::marker;
use super::{line_colour, rgb};
use crate::chart::frame::{Area, Failure, INK};
use crate::chart::legend::{self, Mark, CHAR, MARK};
use crate::chart::{colour_of, AxisRange, ChartModel, Rgb, Scale};
use disagg_engine::sweep::Class;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// The key under the plot, as [`legend::key`] placed it.
pub(super) fn draw_key<DB: DrawingBackend>(
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
            Mark::Cross => {
                let ink = ShapeStyle::from(&BLACK).stroke_width(r(2.0).max(1) as u32);
                let d = r(5.0);
                for (from, to) in [((-d, -d), (d, d)), ((-d, d), (d, -d))] {
                    area.draw(&PathElement::new(
                        vec![
                            (centre.0 + from.0, centre.1 + from.1),
                            (centre.0 + to.0, centre.1 + to.1),
                        ],
                        ink,
                    ))?;
                }
            }
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
        let text = format!("${}", crate::chart::compact(v));
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
    use super::super::tests::record;
    use crate::scenario::{Scenario, YAxis};
    use disagg_engine::sweep::Class;

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
}
