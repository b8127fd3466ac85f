//! The pinned scenarios' frontiers as the chart overlays them: each pin's best
//! frontier (all deployments, mixed or not) on the chart's y axis, a dashed line
//! whose dash pattern is the pin's own, so pins differ by more than colour.

use super::{sweep_of, Pin, Sweeps};
use crate::chart::{y_value, ChartModel, Rgb};
use crate::scenario::YAxis;

/// One pin's frontier on the chart.
#[derive(Clone, Debug, PartialEq)]
pub struct PinLine {
    /// The pin's place, from 1: its dash pattern and colour.
    pub number: usize,
    pub name: String,
    /// (tok/s/user, y) along the frontier, by interactivity.
    pub points: Vec<(f64, f64)>,
}

impl PinLine {
    /// The legend's words: "pin 1: llama-3.3-70b, aggregated, ...".
    pub fn legend(&self) -> String {
        format!("pin {}: {}", self.number, self.name)
    }

    /// Dash and gap lengths in CSS pixels: longer dashes for later pins, so that two
    /// pins read apart in grey print and for colour-blind readers.
    pub fn dash(&self) -> (f64, f64) {
        DASHES[(self.number.max(1) - 1) % DASHES.len()]
    }

    pub fn colour(&self) -> Rgb {
        PIN_COLOURS[(self.number.max(1) - 1) % PIN_COLOURS.len()]
    }
}

const DASHES: [(f64, f64); 4] = [(3.0, 3.0), (8.0, 4.0), (14.0, 4.0), (2.0, 7.0)];

/// Dark Okabe-Ito and Tol hues, none the frontiers' ink or purple nor a price stop's
/// colour, each with at least 4.5:1 contrast on white.
const PIN_COLOURS: [Rgb; 4] = [(0, 90, 140), (160, 60, 0), (0, 110, 80), (110, 60, 130)];

/// The lines of the pins whose sweeps have arrived, on y axis `y`; a pin whose sweep
/// failed or drew no frontier has none.
pub fn pin_lines(pins: &[Pin], sweeps: &Sweeps, y: YAxis) -> Vec<PinLine> {
    pins.iter()
        .enumerate()
        .filter_map(|(i, pin)| {
            let e = sweep_of(pin, sweeps)?;
            let r = e.result.as_ref().ok()?;
            let points: Vec<(f64, f64)> = r
                .points(&r.frontiers_of(y.objective()).all)
                .filter_map(|p| {
                    let x = p.figures.tok_s_user.value();
                    let yv = y_value(y, &p.figures)?;
                    (x.is_finite() && x > 0.0).then_some((x, yv))
                })
                .collect();
            (!points.is_empty()).then(|| PinLine {
                number: i + 1,
                name: pin.name.clone(),
                points,
            })
        })
        .collect()
}

impl ChartModel {
    /// The chart with the pinned scenarios' frontiers over it, its axes widened to
    /// show them whole.
    pub fn with_pins(mut self, pins: Vec<PinLine>) -> ChartModel {
        if pins.is_empty() {
            return self;
        }
        self.pins = pins;
        self.fit_overlays();
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pin_colours_read_on_white() {
        // WCAG relative luminance and contrast against white (1.0).
        let lin = |c: u8| {
            let c = f64::from(c) / 255.0;
            if c <= 0.03928 {
                c / 12.92
            } else {
                ((c + 0.055) / 1.055).powf(2.4)
            }
        };
        for (r, g, b) in PIN_COLOURS {
            let l = 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
            let contrast = 1.05 / (l + 0.05);
            assert!(contrast >= 4.5, "{:?}: {contrast}", (r, g, b));
        }
        // Four pins, four dash patterns.
        for (i, a) in DASHES.iter().enumerate() {
            assert!(DASHES[..i].iter().all(|b| b != a), "{a:?}");
        }
    }
}
