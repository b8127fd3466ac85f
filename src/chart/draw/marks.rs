//! A point's mark: a square for the aggregated baseline, a circle for a single-kind
//! split, a diamond for a mixed deployment (its halves in two colours when coloured by
//! chip), outlined unless the cloud is dense. The key draws its shapes with the same
//! [`marker`].

use crate::chart::frame::{Area, Failure, Pen, INK};
use crate::chart::ChartModel;
use disagg_engine::sweep::Class;
use plotters::prelude::*;

/// A point's mark; `fill` holds the colours of its left and right halves (the same
/// twice but for a mixed point coloured by chip).
pub(super) fn marker<DB: DrawingBackend>(
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

/// The marks' outline: none in a cloud of more than [`DENSE`] points.
pub(super) fn outline(model: &ChartModel, pen: Pen) -> Option<ShapeStyle> {
    (model.points.len() <= DENSE)
        .then(|| ShapeStyle::from(&INK).stroke_width(pen.px(1.0).max(1) as u32))
}

#[cfg(test)]
mod tests {
    use super::super::tests::record;
    use super::super::{draw, Look};
    use super::*;
    use crate::chart::recorder::Recorder;
    use crate::scenario::{Scenario, YAxis};

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
}
