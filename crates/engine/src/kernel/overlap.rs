//! Two-batch overlap of a prefill step, window by window (`audit/MODEL.md` 6.3.1).
//!
//! DeepSeek's day-6 inference overview draws the prefill overlap of one MoE layer as four
//! windows, each one micro-batch's computation beside the other's communication, every
//! window waiting for both to finish (its arrows: a micro-batch's attention needs its
//! combine back, its dispatch needs its attention done, its MLP needs its dispatch):
//!
//! 1. attention of micro-batch 1, then shared experts of 0, beside the combine of 0;
//! 2. attention of 0 beside the dispatch of 1;
//! 3. routed experts (MLP) of 1 beside the dispatch of 0;
//! 4. routed experts of 0, then shared experts of 1, beside the combine of 1.
//!
//! With the two micro-batches alike (each half of the step's tokens), a layer takes
//! `max(a + s, c) + max(a, d) + max(m, d) + max(m + s, c)` in one micro-batch's times:
//! `a` attention, `s` shared experts, `m` routed experts, `d` dispatch, `c` combine.
//! Without communication it is the layer's computation `2(a + s + m)`; without
//! computation its all-to-all `2(d + c)`; in between it is at least the larger of the
//! two, which is what a perfect overlap would give.

use crate::assumptions::Assumptions;
use crate::units::Seconds;
use serde::{Deserialize, Serialize};

/// The MoE layers of a step whose expert all-to-all two micro-batches overlap: their
/// operators' times summed over the layers (both micro-batches), and the layers.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct TwoBatchOverlap {
    /// MoE layers counted.
    pub layers: f64,
    /// Attention projections and core (the router sits with the routed experts).
    pub attention: Seconds,
    pub shared: Seconds,
    pub routed: Seconds,
    /// The all-to-all's two halves: tokens to their experts, and back.
    pub dispatch: Seconds,
    pub combine: Seconds,
}

/// One micro-batch's times in one (mean) MoE layer: `a`, `s`, `m`, `d`, `c`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MicroBatchLayer {
    pub attention: Seconds,
    pub shared: Seconds,
    pub routed: Seconds,
    pub dispatch: Seconds,
    pub combine: Seconds,
}

impl MicroBatchLayer {
    /// The four windows of one layer, `max(a + s, c) + max(a, d) + max(m, d) + max(m + s, c)`.
    pub fn windows(&self) -> Seconds {
        let (a, s, m, d, c) = (
            self.attention,
            self.shared,
            self.routed,
            self.dispatch,
            self.combine,
        );
        (a + s).max(c) + a.max(d) + m.max(d) + (m + s).max(c)
    }
}

impl TwoBatchOverlap {
    /// Adds `count` alike layers with these per-layer times (whole step), splitting the
    /// all-to-all's `a2a` time between dispatch and combine in proportion to the bytes
    /// per element each carries (`dispatch_width`, `combine_width`).
    pub fn add_layers(
        &mut self,
        count: f64,
        attention: Seconds,
        shared: Seconds,
        routed: Seconds,
        a2a: Seconds,
        (dispatch_width, combine_width): (f64, f64),
    ) {
        let widths = dispatch_width + combine_width;
        let dispatch_share = if widths > 0.0 {
            dispatch_width / widths
        } else {
            0.5
        };
        self.layers += count;
        self.attention += attention * count;
        self.shared += shared * count;
        self.routed += routed * count;
        self.dispatch += a2a * (dispatch_share * count);
        self.combine += a2a * ((1.0 - dispatch_share) * count);
    }

    /// One micro-batch's share of the mean layer: the totals over `2 x layers`.
    pub fn micro_batch_layer(&self) -> MicroBatchLayer {
        let n = (2.0 * self.layers).max(1.0);
        MicroBatchLayer {
            attention: self.attention / n,
            shared: self.shared / n,
            routed: self.routed / n,
            dispatch: self.dispatch / n,
            combine: self.combine / n,
        }
    }

    /// The layers' time under the overlap: `layers x windows` of the mean layer.
    pub fn time(&self) -> Seconds {
        self.micro_batch_layer().windows() * self.layers
    }

    /// Their computation alone.
    pub fn busy(&self) -> Seconds {
        self.attention + self.shared + self.routed
    }

    /// Their all-to-all alone.
    pub fn communication(&self) -> Seconds {
        self.dispatch + self.combine
    }
}

/// Whether a step runs as two micro-batches that overlap their expert all-to-all: a
/// prefill pool's two-batch overlap (`Assumptions::prefill_two_batch_overlap`), which
/// `disagg::prefill_decode` turns on with the whole overlap a user's `comm_overlap`
/// (below 1) cannot reach.
pub fn two_batch_overlaps(a: &Assumptions) -> bool {
    a.prefill_two_batch_overlap && a.comm_overlap >= 1.0
}

#[cfg(test)]
mod tests {
    use super::*;

    fn layer(a: f64, s: f64, m: f64, d: f64, c: f64) -> MicroBatchLayer {
        MicroBatchLayer {
            attention: Seconds(a),
            shared: Seconds(s),
            routed: Seconds(m),
            dispatch: Seconds(d),
            combine: Seconds(c),
        }
    }

    #[test]
    fn the_windows_are_the_computation_without_communication_and_the_reverse() {
        assert_eq!(layer(3.0, 1.0, 4.0, 0.0, 0.0).windows(), Seconds(16.0));
        assert_eq!(layer(0.0, 0.0, 0.0, 2.0, 5.0).windows(), Seconds(14.0));
        // Each window pays its larger side: max(4, 5) + max(3, 2) + max(4, 2) + max(5, 5).
        assert_eq!(layer(3.0, 1.0, 4.0, 2.0, 5.0).windows(), Seconds(17.0));
    }

    #[test]
    fn the_overlap_never_beats_the_larger_of_computation_and_communication() {
        for a in [0.5, 2.0, 6.0] {
            for m in [0.5, 3.0, 7.0] {
                for d in [0.0, 1.0, 4.0] {
                    let l = layer(a, 0.4, m, d, 2.0 * d);
                    let busy = 2.0 * (a + 0.4 + m);
                    let comm = 2.0 * (d + 2.0 * d);
                    let w = l.windows().value();
                    assert!(w >= busy.max(comm) - 1e-12, "{l:?}");
                    assert!(w <= busy + comm + 1e-12, "{l:?}");
                }
            }
        }
    }

    #[test]
    fn layers_add_up_and_split_the_all_to_all_by_its_widths() {
        let mut o = TwoBatchOverlap::default();
        // FP8 dispatch (1 byte), BF16 combine (2 bytes): a third and two thirds.
        o.add_layers(
            58.0,
            Seconds(4.0),
            Seconds(1.0),
            Seconds(6.0),
            Seconds(9.0),
            (1.0, 2.0),
        );
        assert_eq!(o.layers, 58.0);
        assert!((o.dispatch.value() - 58.0 * 3.0).abs() < 1e-9);
        assert!((o.combine.value() - 58.0 * 6.0).abs() < 1e-9);
        let l = o.micro_batch_layer();
        assert_eq!(l.attention, Seconds(2.0));
        // max(2.5, 3) + max(2, 1.5) + max(3, 1.5) + max(3.5, 3) = 3 + 2 + 3 + 3.5.
        assert!((o.time().value() - 58.0 * 11.5).abs() < 1e-9);
        assert_eq!(o.busy(), Seconds(58.0 * 11.0));
    }
}
