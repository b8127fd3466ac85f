//! The roofline table's rows: one operator of one layer with its FLOPs, bytes by kind
//! and two bounds ([`Row`]), and where the step's walk hands them: into the step's
//! totals ([`Accumulator`]) and, through a [`RowSink`], nowhere on the hot path or into
//! an operator table. Private to the kernel: `step.rs` writes the rows, `operators.rs`
//! reads them.

use super::{operator_time, OpCost, OpKind};
use crate::units::{Bytes, Flops, Seconds};

/// One row of the roofline table: an operator of one layer, repeated `count` times.
#[derive(Clone, Copy, Debug)]
pub(super) struct Row {
    pub(super) kind: OpKind,
    pub(super) count: f64,
    pub(super) flops: Flops,
    pub(super) bytes: RowBytes,
    /// Time if compute bound.
    pub(super) compute: Seconds,
    /// Time if memory (or link) bound.
    pub(super) memory: Seconds,
    pub(super) kernels: f64,
}

/// The bytes one operator of one layer moves, by what they are.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct RowBytes {
    pub(super) weights: Bytes,
    pub(super) kv: Bytes,
    /// Activations read and written (and, for routed experts, the router's weights).
    pub(super) activations: Bytes,
    /// Bytes sent over a link (communication operators).
    pub(super) link: Bytes,
}

impl RowBytes {
    pub(super) fn total(&self) -> Bytes {
        self.weights + self.kv + self.activations + self.link
    }
}

impl Row {
    /// One instance's time from its two bounds ([`operator_time`]).
    pub(super) fn time(&self) -> Seconds {
        operator_time(self.compute, self.memory)
    }

    /// A row that only moves bytes over a link, taking `time`.
    pub(super) fn transfer(kind: OpKind, count: f64, bytes: Bytes, time: Seconds) -> Row {
        Row {
            kind,
            count,
            flops: Flops::ZERO,
            bytes: RowBytes {
                link: bytes,
                ..RowBytes::default()
            },
            compute: Seconds::ZERO,
            memory: time,
            kernels: 0.0,
        }
    }
}

/// Where the kernel's rows go besides the totals: nowhere on the hot path (`()`), into
/// an operator table when a person asks where the time goes.
pub(super) trait RowSink {
    /// `group`: index of the layer group in the model, `None` for the LM head.
    fn row(&mut self, group: Option<usize>, row: &Row);
}

impl RowSink for () {
    #[inline(always)]
    fn row(&mut self, _: Option<usize>, _: &Row) {}
}

pub(super) struct Accumulator<'s, S: RowSink> {
    pub(super) ops: [OpCost; OpKind::COUNT],
    /// Weight bytes the step reads, over every row.
    pub(super) weights: Bytes,
    pub(super) sink: &'s mut S,
    /// The layer group the rows being added belong to.
    pub(super) group: Option<usize>,
}

impl<S: RowSink> Accumulator<'_, S> {
    pub(super) fn add(&mut self, row: Row) {
        self.sink.row(self.group, &row);
        let op = &mut self.ops[row.kind as usize];
        let time = row.time() * row.count;
        op.flops += row.flops * row.count;
        op.bytes += row.bytes.total() * row.count;
        op.compute_time += row.compute * row.count;
        op.memory_time += row.memory * row.count;
        op.time += time;
        if row.compute >= row.memory {
            op.compute_bound_time += time;
        }
        op.kernels += row.kernels * row.count;
        self.weights += row.bytes.weights * row.count;
    }
}
