//! Input-to-redraw latency as the page measures it: from the event that changed the
//! scenario to the end of drawing the new chart, and where that time went.

use disagg_engine::units::Seconds;

/// The last samples kept for the percentile.
pub const WINDOW: usize = 200;

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Latencies {
    samples: Vec<f64>,
    /// Every sample ever pushed, beyond the window too.
    total: u64,
}

/// How a job's answer reached the page, as the page's handle on its worker saw it.
/// Times `*_at` are on the page's clock; the worker's own times are durations (its
/// clock is another).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Arrival {
    /// When the request went to a listening worker (after waiting behind a stale job
    /// or for a new worker to start).
    pub posted_at: f64,
    /// Of the wait before, the time a new worker took to start.
    pub start_ms: f64,
    /// When the answer's last message had been read.
    pub read_at: f64,
    /// The job itself, in the worker.
    pub job_ms: f64,
    /// The worker writing the answer as messages.
    pub encode_ms: f64,
    /// The page reading those messages, summed over the tasks that read them.
    pub read_ms: f64,
}

/// One redraw, split into its consecutive parts (they sum to the total), in
/// milliseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Redraw {
    /// From the input event to the redrawn chart.
    pub total_ms: f64,
    /// From the input until its request went to a listening worker, less the time a
    /// new worker took to start: waiting behind a stale job.
    pub queued_ms: f64,
    /// A new worker starting (its code loading) while the request waited.
    pub start_ms: f64,
    pub sweep_ms: f64,
    /// From the sweep's end in the worker to its last message read on the page.
    pub delivery_ms: f64,
    /// Of the delivery, the worker writing the sweep as messages, and the page reading
    /// them (the two may overlap: the page reads a part while the next is written).
    pub encode_ms: f64,
    pub read_ms: f64,
    /// From the answer read to the start of drawing: the views taking the new sweep
    /// and the chart's model.
    pub show_ms: f64,
    /// From the start of drawing to its end; a large chart is drawn in parts, and this
    /// spans them and whatever the browser did between them.
    pub draw_ms: f64,
}

impl Redraw {
    /// The redraw of an input at `input_at`, drawn from `draw_at` to `done_at`, after
    /// the sweep that `arrival` brought (none when the input only changed what is
    /// drawn).
    pub fn new(input_at: f64, arrival: Option<Arrival>, draw_at: f64, done_at: f64) -> Redraw {
        let since_input = |t: f64| (t - input_at).max(0.0);
        let mut r = Redraw {
            total_ms: since_input(done_at),
            draw_ms: (done_at - draw_at).max(0.0),
            ..Redraw::default()
        };
        let mut shown_from = 0.0;
        if let Some(a) = arrival {
            let queued = since_input(a.posted_at);
            let carried = (a.read_at - a.posted_at).max(0.0);
            r.start_ms = a.start_ms.clamp(0.0, queued);
            r.queued_ms = queued - r.start_ms;
            r.sweep_ms = a.job_ms.clamp(0.0, carried);
            r.delivery_ms = carried - r.sweep_ms;
            r.encode_ms = a.encode_ms;
            r.read_ms = a.read_ms;
            shown_from = queued + carried;
        }
        r.show_ms = (since_input(draw_at) - shown_from).max(0.0);
        r
    }

    /// The parts in words, those that took time only: "queued 12.0 ms, sweep 1,200 ms,
    /// delivery 90.0 ms (writing 20.0 ms, reading 60.0 ms), showing 9.00 ms, draw 30.0 ms".
    pub fn parts(&self) -> String {
        let ms = |v: f64| crate::format::duration(Seconds::from_ms(v));
        let named = |name: &str, v: f64| (v > 0.0).then(|| format!("{name} {}", ms(v)));
        let inner: Vec<String> = [
            named("writing", self.encode_ms),
            named("reading", self.read_ms),
        ]
        .into_iter()
        .flatten()
        .collect();
        let delivery = named("delivery", self.delivery_ms).map(|d| match inner.is_empty() {
            true => d,
            false => format!("{d} ({})", inner.join(", ")),
        });
        [
            named("queued", self.queued_ms),
            named("worker start", self.start_ms),
            named("sweep", self.sweep_ms),
            delivery,
            named("showing", self.show_ms),
            Some(format!("draw {}", ms(self.draw_ms))),
        ]
        .into_iter()
        .flatten()
        .collect::<Vec<_>>()
        .join(", ")
    }
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
    fn a_redraw_splits_into_its_parts() {
        let arrival = Arrival {
            posted_at: 1_100.0,
            start_ms: 40.0,
            read_at: 2_900.0,
            job_ms: 1_200.0,
            encode_ms: 150.0,
            read_ms: 250.0,
        };
        let r = Redraw::new(1_000.0, Some(arrival), 3_050.0, 3_080.0);
        assert_eq!(
            r,
            Redraw {
                total_ms: 2_080.0,
                queued_ms: 60.0,
                start_ms: 40.0,
                sweep_ms: 1_200.0,
                delivery_ms: 600.0,
                encode_ms: 150.0,
                read_ms: 250.0,
                show_ms: 150.0,
                draw_ms: 30.0,
            }
        );
        let parts = r.queued_ms + r.start_ms + r.sweep_ms + r.delivery_ms + r.show_ms + r.draw_ms;
        assert_eq!(parts, r.total_ms);
        assert_eq!(
            r.parts(),
            "queued 60.0 ms, worker start 40.0 ms, sweep 1,200 ms, delivery 600 ms \
             (writing 150 ms, reading 250 ms), showing 150 ms, draw 30.0 ms"
        );
        // A redraw without a sweep (the y axis changed) is showing and drawing only.
        let r = Redraw::new(1_000.0, None, 1_010.0, 1_040.0);
        assert_eq!((r.total_ms, r.show_ms, r.draw_ms), (40.0, 10.0, 30.0));
        assert_eq!(r.sweep_ms + r.queued_ms + r.delivery_ms, 0.0);
        assert_eq!(r.parts(), "showing 10.0 ms, draw 30.0 ms");
        // Clocks read in another order never give a negative part.
        let late = Arrival {
            posted_at: 900.0,
            start_ms: 200.0,
            read_at: 950.0,
            job_ms: 80.0,
            ..Arrival::default()
        };
        let r = Redraw::new(1_000.0, Some(late), 990.0, 1_020.0);
        for part in [
            r.queued_ms,
            r.start_ms,
            r.sweep_ms,
            r.delivery_ms,
            r.show_ms,
            r.draw_ms,
            r.total_ms,
        ] {
            assert!(part >= 0.0, "{r:?}");
        }
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
