//! Input-to-redraw latency as the page measures it: from the event that changed the
//! scenario to the end of drawing the new chart.

/// The last samples kept for the percentile.
pub const WINDOW: usize = 200;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Latencies {
    samples: Vec<f64>,
    /// Every sample ever pushed, beyond the window too.
    total: u64,
}

/// One redraw, split into its parts.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Redraw {
    /// From the input event to the redrawn chart.
    pub total_ms: f64,
    pub sweep_ms: f64,
    pub draw_ms: f64,
}

impl Latencies {
    pub fn push(&mut self, ms: f64) {
        if ms.is_finite() && ms >= 0.0 {
            self.total += 1;
            if self.samples.len() == WINDOW {
                self.samples.remove(0);
            }
            self.samples.push(ms);
        }
    }

    /// Redraws measured since the page opened.
    pub fn total(&self) -> u64 {
        self.total
    }

    pub fn len(&self) -> usize {
        self.samples.len()
    }

    pub fn is_empty(&self) -> bool {
        self.samples.is_empty()
    }

    /// The `q` quantile (0..=1) by the nearest-rank method.
    pub fn quantile(&self, q: f64) -> Option<f64> {
        if self.samples.is_empty() {
            return None;
        }
        let mut s = self.samples.clone();
        s.sort_by(f64::total_cmp);
        let rank = (q.clamp(0.0, 1.0) * s.len() as f64).ceil().max(1.0) as usize;
        Some(s[rank - 1])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nearest_rank_percentiles() {
        let mut l = Latencies::default();
        assert_eq!(l.quantile(0.95), None);
        for v in 1..=100 {
            l.push(v as f64);
        }
        l.push(f64::NAN);
        assert_eq!(l.len(), 100);
        assert_eq!(l.quantile(0.95), Some(95.0));
        assert_eq!(l.quantile(0.5), Some(50.0));
        assert_eq!(l.quantile(1.0), Some(100.0));
    }

    #[test]
    fn keeps_a_window() {
        let mut l = Latencies::default();
        for v in 0..(WINDOW + 10) {
            l.push(v as f64);
        }
        assert_eq!(l.len(), WINDOW);
        assert_eq!(l.total(), WINDOW as u64 + 10);
        assert_eq!(l.quantile(0.0), Some(10.0));
    }
}
