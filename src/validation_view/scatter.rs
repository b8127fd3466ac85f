//! What the predicted-against-measured scatter shows, before drawing: its points, one
//! square log range shared by both axes (so that y = x is the diagonal), the ±20% band
//! as a polygon in data units, and the chart in words.
//!
//! One panel holds every metric: a point's coordinates are in its own metric's unit,
//! but y = x and the band are lines of constant predicted/measured ratio, which no
//! choice of unit moves, so points of different units are compared on the same lines.

use crate::chart::{AxisRange, Scale};
use crate::format::{count, sig3};
use crate::validation_view::{role_label, signed_percent};
use disagg_engine::validation::{Role, ValidationRow};

/// Half-width of the band: predictions within ±20% of the measurement.
pub const BAND: f64 = 0.2;

/// Fewest decades the axes span, so that the band (a factor 1.5 wide) stays a band.
pub const MIN_SPAN: f64 = 10.0;

#[derive(Clone, Debug, PartialEq)]
pub struct ScatterPoint {
    pub id: String,
    pub measured: f64,
    pub predicted: f64,
    pub role: Role,
    /// "TPOT, ms" etc.: the unit of both coordinates.
    pub metric: &'static str,
}

impl ScatterPoint {
    /// predicted / measured - 1.
    pub fn error(&self) -> f64 {
        self.predicted / self.measured - 1.0
    }

    pub fn in_band(&self) -> bool {
        self.error().abs() <= BAND + 1e-12
    }
}

#[derive(Clone, Debug, PartialEq)]
pub struct Scatter {
    pub points: Vec<ScatterPoint>,
    /// Both axes' range (log scale).
    pub range: AxisRange,
}

/// One log range covering `values` with a quarter's room at each end, widened about
/// its geometric middle to at least [`MIN_SPAN`]; 1 to 100 when there is nothing.
pub fn square_range(values: impl IntoIterator<Item = f64>) -> AxisRange {
    let (mut lo, mut hi) = (f64::INFINITY, f64::NEG_INFINITY);
    for v in values.into_iter().filter(|v| v.is_finite() && *v > 0.0) {
        lo = lo.min(v);
        hi = hi.max(v);
    }
    if !lo.is_finite() {
        return AxisRange {
            lo: 1.0,
            hi: 100.0,
            scale: Scale::Log,
        };
    }
    let (mut lo, mut hi) = (lo / 1.25, hi * 1.25);
    if hi / lo < MIN_SPAN {
        let middle = (lo * hi).sqrt();
        lo = middle / MIN_SPAN.sqrt();
        hi = middle * MIN_SPAN.sqrt();
    }
    AxisRange {
        lo,
        hi,
        scale: Scale::Log,
    }
}

impl Scatter {
    /// The rows with a positive measurement and prediction (the others have no place on
    /// a log scale; the table lists them).
    pub fn new(rows: &[&ValidationRow]) -> Scatter {
        let points: Vec<ScatterPoint> = rows
            .iter()
            .filter_map(|r| {
                let predicted = r.predicted.filter(|v| v.is_finite() && *v > 0.0)?;
                let measured = r.point.measured;
                (measured.is_finite() && measured > 0.0).then(|| ScatterPoint {
                    id: r.point.id.clone(),
                    measured,
                    predicted,
                    role: r.point.role,
                    metric: r.point.metric.label(),
                })
            })
            .collect();
        let range = square_range(points.iter().flat_map(|p| [p.measured, p.predicted]));
        Scatter { points, range }
    }

    /// The diagonal y = x, corner to corner.
    pub fn diagonal(&self) -> [(f64, f64); 2] {
        [
            (self.range.lo, self.range.lo),
            (self.range.hi, self.range.hi),
        ]
    }

    /// The band `(1 - b) x <= y <= (1 + b) x` cut to the square `[lo, hi]²`: a hexagon,
    /// counter-clockwise from the lower-left corner (which lies inside the band).
    pub fn band(&self) -> [(f64, f64); 6] {
        let (lo, hi) = (self.range.lo, self.range.hi);
        let (under, over) = (1.0 - BAND, 1.0 + BAND);
        [
            (lo, lo),
            (lo / under, lo),
            (hi, hi * under),
            (hi, hi),
            (hi / over, hi),
            (lo, lo * over),
        ]
    }

    pub fn in_band(&self) -> usize {
        self.points.iter().filter(|p| p.in_band()).count()
    }

    /// The chart in words, for the canvas's `aria-describedby`.
    pub fn describe(&self) -> String {
        let n = self.points.len();
        if n == 0 {
            return "Scatter of predicted against measured: no point with a prediction is shown; clear a filter.".into();
        }
        let of = |role: Role| self.points.iter().filter(|p| p.role == role).count();
        let mut parts = vec![
            format!(
                "Scatter of predicted against measured, both on one log scale from {} to {}, for {} published points ({} calibration, drawn as circles; {} hold-out, drawn as triangles), each in its metric's unit.",
                sig3(self.range.lo),
                sig3(self.range.hi),
                count(n as u64),
                count(of(Role::Calibration) as u64),
                count(of(Role::Holdout) as u64),
            ),
            format!(
                "The diagonal is a perfect prediction; the shaded band is within ±{:.0}%, and holds {} of the {} points.",
                BAND * 100.0,
                count(self.in_band() as u64),
                count(n as u64)
            ),
        ];
        if let Some(worst) = self
            .points
            .iter()
            .max_by(|a, b| a.error().abs().total_cmp(&b.error().abs()))
        {
            parts.push(format!(
                "Furthest off: {} ({}, {}), predicted {} against measured {} ({}).",
                worst.id,
                role_label(worst.role),
                worst.metric,
                sig3(worst.predicted),
                sig3(worst.measured),
                signed_percent(Some(worst.error()))
            ));
        }
        parts.join(" ")
    }
}
