//! The numeric assumptions as a user sets them: one table ([`KNOBS`]) of each knob's
//! name, meaning, unit, range and accessors, which the validation checks, the page's
//! assumptions panel shows and a pin writes; the indices of the knobs a framework or a
//! chip may set, found in it at compile time.

use super::Assumptions;
use crate::limits::MIN_EFFICIENCY;
use crate::units::Seconds;

impl Assumptions {
    /// These assumptions with `name` set to `v` and pinned, so that no framework
    /// default replaces it.
    pub fn pin(mut self, name: &str, v: f64) -> Assumptions {
        if let Some(k) = knob(name) {
            k.set(&mut self, v);
            self.pinned = self.pinned.with(name);
        }
        self
    }
}

/// One numeric assumption as a user sets it: its name (that of the `--assumptions`
/// file), what it means, its unit (the file's), the range it must lie in, and how to
/// read and write it. [`Assumptions::validate`] checks these ranges.
#[derive(Clone, Copy, Debug)]
pub struct Knob {
    pub name: &'static str,
    pub meaning: &'static str,
    pub unit: &'static str,
    /// Both ends allowed.
    pub range: (f64, f64),
    pub(super) get: fn(&Assumptions) -> f64,
    set: fn(&mut Assumptions, f64),
}

impl Knob {
    pub fn get(&self, a: &Assumptions) -> f64 {
        (self.get)(a)
    }

    /// Sets the value, unchecked: [`Assumptions::validate`] checks the whole.
    pub fn set(&self, a: &mut Assumptions, v: f64) {
        (self.set)(a, v)
    }

    /// `v` as a reader takes it in: the value in the knob's own unit, as the
    /// `--assumptions` file and the link write it, and a time besides in the unit that
    /// keeps it between 1 and 1,000 (`0.0000000192 s = 19.2 ns`).
    pub fn shown(&self, v: f64) -> String {
        let exact = format!("{v} {}", self.unit);
        match self.readable_time(v) {
            Some(t) => format!("{exact} = {t}"),
            None => exact,
        }
    }

    /// A time below a second in the unit that keeps it between 1 and 1,000 (`19.2 ns`, to
    /// six significant digits as the explain prints numbers); `None` for other units, zero
    /// and whole seconds, which read as they are.
    pub fn readable_time(&self, v: f64) -> Option<String> {
        if self.unit != "s" || v == 0.0 || !v.is_finite() {
            return None;
        }
        let (scale, unit) = [(1e9, "ns"), (1e6, "us"), (1e3, "ms")]
            .into_iter()
            .find(|(scale, _)| v.abs() * scale < 1e3)?;
        Some(format!("{} {unit}", crate::explain::significant(v * scale)))
    }
}

/// Every numeric assumption. Efficiencies are at least 1%, below which a rate is not a
/// rate (a subnormal one made TTFT infinite); fully hidden communication would make
/// links free; at least a tenth of the memory must remain for weights and the KV cache;
/// host costs run from zero to a second; element widths from FP4 to FP64.
pub const KNOBS: [Knob; 15] = [
    Knob {
        name: "mfu",
        meaning: "sustained fraction of the dense peak a matmul reaches",
        unit: "fraction",
        range: (MIN_EFFICIENCY, 1.0),
        get: |a| a.mfu,
        set: |a, v| a.mfu = v,
    },
    Knob {
        name: "bw_eff",
        meaning: "sustained fraction of peak memory bandwidth",
        unit: "fraction",
        range: (MIN_EFFICIENCY, 1.0),
        get: |a| a.bw_eff,
        set: |a, v| a.bw_eff = v,
    },
    Knob {
        name: "link_eff",
        meaning: "sustained fraction of link bandwidth collectives reach",
        unit: "fraction",
        range: (MIN_EFFICIENCY, 1.0),
        get: |a| a.link_eff,
        set: |a, v| a.link_eff = v,
    },
    Knob {
        name: "comm_overlap",
        meaning: "fraction of communication hidden under compute (0: fully exposed)",
        unit: "fraction",
        range: (0.0, 0.99),
        get: |a| a.comm_overlap,
        set: |a, v| a.comm_overlap = v,
    },
    Knob {
        name: "expert_skew",
        meaning: "busiest expert-parallel rank's routed load over the mean from routing skew (1: uniform routing)",
        unit: "ratio",
        range: (1.0, 4.0),
        get: |a| a.expert_skew,
        set: |a, v| a.expert_skew = v,
    },
    Knob {
        name: "runtime_reserve",
        meaning: "memory the runtime holds back (context, buffers, fragmentation)",
        unit: "fraction",
        range: (0.0, 0.9),
        get: |a| a.runtime_reserve,
        set: |a, v| a.runtime_reserve = v,
    },
    Knob {
        name: "kernel_overhead",
        meaning: "fixed cost of one kernel (launch, ramp, tail)",
        unit: "s",
        range: (0.0, 1.0),
        get: |a| a.kernel_overhead.0,
        set: |a, v| a.kernel_overhead = Seconds(v),
    },
    Knob {
        name: "eager_kernel_overhead",
        meaning: "host cost of one kernel launched from Python in a prompt step run without CUDA graphs (0: graphed or native)",
        unit: "s",
        range: (0.0, 1.0),
        get: |a| a.eager_kernel_overhead.0,
        set: |a, v| a.eager_kernel_overhead = Seconds(v),
    },
    Knob {
        name: "step_overhead",
        meaning: "fixed cost of one engine step (scheduling, sampling, host work)",
        unit: "s",
        range: (0.0, 1.0),
        get: |a| a.step_overhead.0,
        set: |a, v| a.step_overhead = Seconds(v),
    },
    Knob {
        name: "seq_overhead",
        meaning: "host work per sequence per engine step",
        unit: "s",
        range: (0.0, 1.0),
        get: |a| a.seq_overhead.0,
        set: |a, v| a.seq_overhead = Seconds(v),
    },
    Knob {
        name: "activation_bytes",
        meaning: "bytes per activation element",
        unit: "bytes",
        range: (0.5, 8.0),
        get: |a| a.activation_bytes,
        set: |a, v| a.activation_bytes = v,
    },
    Knob {
        name: "prefill_chunk_tokens",
        meaning: "most tokens one prefill step takes (chunked-prefill budget)",
        unit: "tokens",
        range: (1.0, 1e7),
        get: |a| a.prefill_chunk_tokens,
        set: |a, v| a.prefill_chunk_tokens = v,
    },
    Knob {
        name: "max_seqs_per_replica",
        meaning: "most sequences a serving engine batches per replica",
        unit: "sequences",
        range: (1.0, 1e7),
        get: |a| a.max_seqs_per_replica,
        set: |a, v| a.max_seqs_per_replica = v,
    },
    Knob {
        name: "fp4_routed_pick_time",
        meaning: "device time a fused MoE spends per routed pick of FP4 experts beyond the pick's matmul (0: none)",
        unit: "s",
        range: (0.0, 1e-3),
        get: |a| a.fp4_routed_pick_time.0,
        set: |a, v| a.fp4_routed_pick_time = Seconds(v),
    },
    Knob {
        name: "fp8_block_routed_pick_time",
        meaning: "device time a fused MoE spends per routed pick of block-scaled FP8 experts beyond the pick's matmul (0: none)",
        unit: "s",
        range: (0.0, 1e-3),
        get: |a| a.fp8_block_routed_pick_time.0,
        set: |a, v| a.fp8_block_routed_pick_time = Seconds(v),
    },
];

/// Where the knob `name` sits in [`KNOBS`], found at compile time (a name that is
/// not there fails the build).
pub const fn knob_index(name: &str) -> usize {
    let mut i = 0;
    while i < KNOBS.len() {
        if str_eq(KNOBS[i].name, name) {
            return i;
        }
        i += 1;
    }
    panic!("no such knob")
}

const fn str_eq(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut i = 0;
    while i < a.len() {
        if a[i] != b[i] {
            return false;
        }
        i += 1;
    }
    true
}

/// The knobs a serving framework or a chip may set for a pool ([`Assumptions::on_chip`]).
pub const MAX_SEQS: usize = knob_index("max_seqs_per_replica");
pub const CHUNK: usize = knob_index("prefill_chunk_tokens");
pub const STEP: usize = knob_index("step_overhead");
pub const EAGER: usize = knob_index("eager_kernel_overhead");
pub const SEQ: usize = knob_index("seq_overhead");
pub const RESERVE: usize = knob_index("runtime_reserve");
pub const KERNEL: usize = knob_index("kernel_overhead");
pub const FP4_PICK: usize = knob_index("fp4_routed_pick_time");
pub const FP8_BLOCK_PICK: usize = knob_index("fp8_block_routed_pick_time");
/// The knobs a serving framework scales by a factor rather than sets
/// ([`crate::serving::KernelFactors`]).
pub const MFU: usize = knob_index("mfu");
pub const BW_EFF: usize = knob_index("bw_eff");

/// The assumption called `name`.
pub fn knob(name: &str) -> Option<&'static Knob> {
    KNOBS.iter().find(|k| k.name == name)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_numeric_assumption_has_a_knob_that_reads_and_writes_it() {
        let json = serde_json::to_value(Assumptions::default()).unwrap();
        let fields = json.as_object().unwrap();
        for (name, value) in fields {
            if let Some(v) = value.as_f64() {
                let k = knob(name).unwrap_or_else(|| panic!("no knob for {name}"));
                assert_eq!(k.get(&Assumptions::default()), v, "{name}");
                let mut a = Assumptions::default();
                k.set(&mut a, k.range.1);
                assert!(a.validate().is_ok(), "{name} at its upper end");
                k.set(&mut a, k.range.1 * 2.0 + 1.0);
                assert!(a.validate().unwrap_err().to_string().contains(name));
            }
        }
        assert_eq!(KNOBS.len(), fields.values().filter(|v| v.is_f64()).count());
    }

    #[test]
    fn a_time_is_shown_in_seconds_and_in_the_unit_that_reads_it() {
        let pick = knob("fp4_routed_pick_time").unwrap();
        assert_eq!(pick.shown(19.2e-9), "0.0000000192 s = 19.2 ns");
        assert_eq!(pick.shown(0.0), "0 s");
        let step = knob("step_overhead").unwrap();
        assert_eq!(step.shown(2e-4), "0.0002 s = 200 us");
        assert_eq!(step.shown(0.0125), "0.0125 s = 12.5 ms");
        assert_eq!(step.shown(0.5), "0.5 s = 500 ms");
        assert_eq!(step.shown(1.0), "1 s");
        // Other units are the value alone.
        assert_eq!(knob("mfu").unwrap().shown(0.6), "0.6 fraction");
        assert_eq!(knob("mfu").unwrap().readable_time(0.6), None);
        assert_eq!(pick.readable_time(19.2e-9).as_deref(), Some("19.2 ns"));
    }
}
