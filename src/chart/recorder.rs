//! A drawing backend for tests: it records the shapes plotters asks for instead of
//! drawing them, so the chart's and the validation scatter's tests can count what a
//! drawing holds.

use plotters::prelude::DrawingBackend;
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind,
};

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
        self.circles += 1;
        if fill {
            self.filled_circles += 1;
            self.fills.push(style.color().rgb);
        }
        Ok(())
    }
    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        _: I,
        style: &S,
    ) -> Result<(), DrawingErrorKind<Self::ErrorType>> {
        self.polygons.push(style.color().rgb);
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
