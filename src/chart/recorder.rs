//! A drawing backend for tests: it records the shapes plotters asks for instead of
//! drawing them, so the chart's and the validation scatter's tests can count what a
//! drawing holds.

use plotters::prelude::DrawingBackend;
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind,
};

/// A style in the log: colour, opacity and width.
fn style<S: BackendStyle>(s: &S) -> String {
    let c = s.color();
    format!("{:?}/{}/{}", c.rgb, c.alpha, s.stroke_width())
}

#[derive(Debug)]
pub(crate) struct Recorder {
    size: (u32, u32),
    /// Every circle, filled or outlined.
    pub circles: usize,
    pub filled_circles: usize,
    /// The fill colour of each filled polygon.
    pub polygons: Vec<(u8, u8, u8)>,
    pub rects: usize,
    pub paths: usize,
    pub texts: Vec<String>,
    /// The colour of each filled circle and polygon, in drawing order.
    pub fills: Vec<(u8, u8, u8)>,
    /// Every call, in order, with its coordinates and style: two drawings that make
    /// the same calls have the same log.
    pub log: Vec<String>,
}

impl Recorder {
    pub(crate) fn of_size(width: u32, height: u32) -> Recorder {
        Recorder {
            size: (width, height),
            circles: 0,
            filled_circles: 0,
            polygons: Vec::new(),
            rects: 0,
            paths: 0,
            texts: Vec::new(),
            fills: Vec::new(),
            log: Vec::new(),
        }
    }
}

impl DrawingBackend for &mut Recorder {
    type ErrorType = std::fmt::Error;
    fn get_size(&self) -> (u32, u32) {
        self.size
    }
    fn ensure_prepared(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        Ok(())
    }
    fn present(&mut self) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        Ok(())
    }
    fn draw_pixel(
        &mut self,
        at: BackendCoord,
        c: BackendColor,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.log
            .push(format!("pixel {at:?} {:?}/{}", c.rgb, c.alpha));
        Ok(())
    }
    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        s: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.log.push(format!("line {from:?} {to:?} {}", style(s)));
        Ok(())
    }
    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        s: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let path: Vec<_> = path.into_iter().collect();
        self.log.push(format!("path {path:?} {}", style(s)));
        self.paths += 1;
        Ok(())
    }
    fn draw_rect<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        s: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.log
            .push(format!("rect {from:?} {to:?} {} fill {fill}", style(s)));
        self.rects += 1;
        Ok(())
    }
    fn draw_circle<S: BackendStyle>(
        &mut self,
        at: BackendCoord,
        radius: u32,
        s: &S,
        fill: bool,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.log
            .push(format!("circle {at:?} {radius} {} fill {fill}", style(s)));
        self.circles += 1;
        if fill {
            self.filled_circles += 1;
            self.fills.push(s.color().rgb);
        }
        Ok(())
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        s: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let path: Vec<_> = path.into_iter().collect();
        self.log.push(format!("polygon {path:?} {}", style(s)));
        self.polygons.push(s.color().rgb);
        self.fills.push(s.color().rgb);
        Ok(())
    }
    fn draw_text<T: BackendTextStyle>(
        &mut self,
        text: &str,
        s: &T,
        at: BackendCoord,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        let (c, anchor) = (s.color(), s.anchor());
        // Neither anchor nor transform prints itself: each as the place it names.
        let place = |h, v| {
            use plotters_backend::text_anchor::{HPos, VPos};
            let h = match h {
                HPos::Left => "left",
                HPos::Right => "right",
                HPos::Center => "centre",
            };
            let v = match v {
                VPos::Top => "top",
                VPos::Center => "middle",
                VPos::Bottom => "bottom",
            };
            format!("{h} {v}")
        };
        let turned = !matches!(s.transform(), plotters_backend::FontTransform::None);
        self.log.push(format!(
            "text {text:?} {at:?} {:?}/{} {} {} turned {turned}",
            c.rgb,
            c.alpha,
            s.size(),
            place(anchor.h_pos, anchor.v_pos)
        ));
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
