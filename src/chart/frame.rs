//! What the explorer's chart and the validation scatter draw alike: the colours of ink,
//! labels and grid, device pixels from CSS pixels, tick labels that skip one touching
//! the last drawn, and the plot's frame with its axis titles.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::legend::CHAR;

pub(crate) const INK: RGBColor = RGBColor(33, 37, 41);
pub(crate) const MUTED: RGBColor = RGBColor(90, 96, 104);
pub(crate) const GRID: RGBColor = RGBColor(226, 229, 233);

pub(crate) type Area<DB> = DrawingArea<DB, Shift>;
pub(crate) type Failure<DB> = DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>;

/// Sizes in device pixels: `scale` device pixels per CSS pixel (1 when the scale is
/// not a positive number).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Pen {
    pub s: f64,
}

impl Pen {
    pub(crate) fn new(scale: f64) -> Pen {
        Pen {
            s: if scale.is_finite() && scale > 0.0 {
                scale
            } else {
                1.0
            },
        }
    }

    /// `v` CSS pixels in device pixels.
    pub(crate) fn px(&self, v: f64) -> i32 {
        (v * self.s).round() as i32
    }

    /// A sans-serif font of `size` CSS pixels, anchored at its top left.
    pub(crate) fn font(&self, size: f64, colour: RGBColor) -> TextStyle<'static> {
        ("sans-serif", size * self.s)
            .into_font()
            .color(&colour)
            .pos(Pos::new(HPos::Left, VPos::Top))
    }

    /// A line of `width` CSS pixels, at least one device pixel.
    pub(crate) fn stroke(&self, colour: &RGBColor, width: f64) -> ShapeStyle {
        ShapeStyle::from(colour).stroke_width(self.px(width).max(1) as u32)
    }
}

/// The plot's corners in device pixels.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Frame {
    pub left: i32,
    pub top: i32,
    pub right: i32,
    pub bottom: i32,
}

/// Tick labels under the plot and left of it; a label that would touch the last one
/// drawn on its axis is left out (its grid line stays).
#[derive(Debug)]
pub(crate) struct TickLabels {
    free_from: i32,
    free_above: i32,
}

impl TickLabels {
    pub(crate) fn new() -> TickLabels {
        TickLabels {
            free_from: i32::MIN,
            free_above: i32::MAX,
        }
    }

    /// `label` under the plot at device x `x`, if it has room.
    pub(crate) fn x<DB: DrawingBackend>(
        &mut self,
        root: &Area<DB>,
        pen: Pen,
        frame: Frame,
        label: String,
        x: i32,
    ) -> Result<(), Failure<DB>> {
        let half = pen.px(label.chars().count() as f64 * CHAR / 2.0);
        if x - half < self.free_from {
            return Ok(());
        }
        self.free_from = x + half + pen.px(6.0);
        root.draw(&Text::new(
            label,
            (x, frame.bottom + pen.px(6.0)),
            pen.font(12.0, MUTED).pos(Pos::new(HPos::Center, VPos::Top)),
        ))
    }

    /// `label` left of the plot at device y `y`, if it has room.
    pub(crate) fn y<DB: DrawingBackend>(
        &mut self,
        root: &Area<DB>,
        pen: Pen,
        frame: Frame,
        label: String,
        y: i32,
    ) -> Result<(), Failure<DB>> {
        if y + pen.px(7.0) > self.free_above {
            return Ok(());
        }
        self.free_above = y - pen.px(7.0);
        root.draw(&Text::new(
            label,
            (frame.left - pen.px(6.0), y),
            pen.font(12.0, MUTED)
                .pos(Pos::new(HPos::Right, VPos::Center)),
        ))
    }
}

/// The plot's frame, the x axis's title under it and the y axis's title turned along
/// its left side.
pub(crate) fn frame_and_titles<DB: DrawingBackend>(
    root: &Area<DB>,
    pen: Pen,
    frame: Frame,
    x_title: String,
    y_title: String,
) -> Result<(), Failure<DB>> {
    let Frame {
        left,
        top,
        right,
        bottom,
    } = frame;
    root.draw(&Rectangle::new(
        [(left, top), (right, bottom)],
        pen.stroke(&MUTED, 1.0),
    ))?;
    root.draw(&Text::new(
        x_title,
        ((left + right) / 2, bottom + pen.px(26.0)),
        pen.font(13.0, INK).pos(Pos::new(HPos::Center, VPos::Top)),
    ))?;
    root.draw(&Text::new(
        y_title,
        (pen.px(6.0), (top + bottom) / 2),
        pen.font(13.0, INK)
            .transform(FontTransform::Rotate270)
            .pos(Pos::new(HPos::Center, VPos::Top)),
    ))
}
