//! The assumptions one pool runs with: where each knob's value comes from for a pool of
//! a chip ([`Origin`]: what the user stated, the chip's own file, or the pool's serving
//! framework's default) and the one resolution of them ([`Assumptions::on_chip`]), with
//! the framework's kernel factors and its prefill budget per replica.

use super::{
    Assumptions, CHUNK, EAGER, FP4_PICK, FP8_BLOCK_PICK, KERNEL, MAX_SEQS, RESERVE, SEQ, STEP,
};
use crate::catalogue::Chip;
use crate::serving::{Defaults, Framework, StepWork};
use crate::units::Seconds;

impl Assumptions {
    /// The assumptions a pool of `chip` runs with: these, with its serving
    /// framework's defaults and the chip's own step overhead where its file states one,
    /// wherever the user stated none ([`Assumptions::origin`]).
    pub fn on_chip(&self, chip: &Chip) -> Assumptions {
        let mut a = *self;
        // Resolved once: this runs for every pool a sweep places.
        let framework = self.framework_on(chip);
        for (index, set) in POOL_KNOBS {
            let value = match self.origin_given(chip, index, framework) {
                Origin::Stated => None,
                Origin::Framework(_) => framework.and_then(|(_, d)| d.get(index)),
                Origin::Chip if index == KERNEL => chip.efficiency.kernel_overhead.map(|s| s.0),
                Origin::Chip => chip.efficiency.step_overhead.map(|s| s.0),
            };
            if let Some(v) = value {
                set(&mut a, v);
            }
        }
        if a.host_overlap.is_none() {
            a.host_overlap = framework.map(|(_, d)| d.host_overlap.of(StepWork::Generating));
        }
        a
    }

    /// These assumptions for a pool of `chip` whose steps are `work`: where no
    /// `host_overlap` is stated, the pool's serving framework's for such steps
    /// (`serving::HostOverlap`), which [`Assumptions::on_chip`] then keeps.
    pub fn for_steps(&self, chip: &Chip, work: StepWork) -> Assumptions {
        let mut a = *self;
        if a.host_overlap.is_none() {
            a.host_overlap = self
                .framework_on(chip)
                .map(|(_, d)| d.host_overlap.of(work));
        }
        a
    }
    /// The prefill token budget one replica of layout `par` on `chip` takes per step.
    /// SGLang's `--chunked-prefill-size` is the server's: with DP attention (replicas
    /// sharing an expert group, `ep > tp`) it divides it by the attention-DP size
    /// (`server_args.py`, `_handle_data_parallelism`: "The chunked prefill size is
    /// adjusted ... to avoid MoE kernel issues"), so each replica takes its share. A
    /// budget the user states is taken as per replica, as the knob says.
    pub fn prefill_chunk_per_replica(&self, chip: &Chip, par: crate::parallel::Parallelism) -> f64 {
        let a = self.on_chip(chip);
        let group = par.replicas_per_expert_group();
        match self.origin(chip, CHUNK) {
            Origin::Framework(Framework::Sglang) if group > 1 => {
                (a.prefill_chunk_tokens / group as f64).max(1.0)
            }
            _ => a.prefill_chunk_tokens,
        }
    }

    /// Where a pool of `chip` takes the knob at `index` of [`KNOBS`](super::KNOBS) from:
    /// what the user stated (or the global default) wins; then a chip whose runtime is not
    /// a GPU serving engine and states its own step cost; then the pool's serving
    /// framework's default, where it has one.
    pub fn origin(&self, chip: &Chip, index: usize) -> Origin {
        self.origin_given(chip, index, self.framework_on(chip))
    }

    /// The serving framework a pool of `chip` runs and its defaults there.
    pub(super) fn framework_on(&self, chip: &Chip) -> Option<(Framework, Defaults)> {
        self.framework.for_chip(chip).map(|f| (f, f.defaults(chip)))
    }

    fn origin_given(
        &self,
        chip: &Chip,
        index: usize,
        framework: Option<(Framework, Defaults)>,
    ) -> Origin {
        if self.pinned.has(index) {
            return Origin::Stated;
        }
        if index == STEP && chip.efficiency.step_overhead.is_some() {
            return Origin::Chip;
        }
        if index == KERNEL && chip.efficiency.kernel_overhead.is_some() {
            return Origin::Chip;
        }
        match framework {
            Some((f, d)) if d.get(index).is_some() || d.factor(index).is_some() => {
                Origin::Framework(f)
            }
            _ => Origin::Stated,
        }
    }

    /// The factor a pool of `chip` puts on the chip's `mfu` or `bw_eff` (`index` of
    /// [`KNOBS`](super::KNOBS)) and the framework it comes from: its serving framework's kernel
    /// factor, unless the user stated that knob.
    pub fn kernel_factor(&self, chip: &Chip, index: usize) -> Option<(Framework, f64)> {
        self.kernel_factor_under(chip, index, self.framework_on(chip))
    }

    /// [`Assumptions::kernel_factor`] with the pool's framework and its defaults given:
    /// what a profile would do before `serving/mod.rs` holds it.
    pub fn kernel_factor_under(
        &self,
        chip: &Chip,
        index: usize,
        framework: Option<(Framework, Defaults)>,
    ) -> Option<(Framework, f64)> {
        match self.origin_given(chip, index, framework) {
            Origin::Framework(f) => framework.and_then(|(_, d)| d.factor(index)).map(|m| (f, m)),
            _ => None,
        }
    }
}

/// How a pool's knob is written.
type Setter = fn(&mut Assumptions, f64);

/// Those knobs with how each is written.
const POOL_KNOBS: [(usize, Setter); 9] = [
    (MAX_SEQS, |a, v| a.max_seqs_per_replica = v),
    (CHUNK, |a, v| a.prefill_chunk_tokens = v),
    (STEP, |a, v| a.step_overhead = Seconds(v)),
    (SEQ, |a, v| a.seq_overhead = Seconds(v)),
    (RESERVE, |a, v| a.runtime_reserve = v),
    (KERNEL, |a, v| a.kernel_overhead = Seconds(v)),
    (EAGER, |a, v| a.eager_kernel_overhead = Seconds(v)),
    (FP4_PICK, |a, v| a.fp4_routed_pick_time = Seconds(v)),
    (FP8_BLOCK_PICK, |a, v| {
        a.fp8_block_routed_pick_time = Seconds(v)
    }),
];

/// Where a pool's value of a knob comes from ([`Assumptions::origin`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    /// The user's value, or the global default.
    Stated,
    /// The pool's serving framework's default.
    Framework(Framework),
    /// The chip's own (a step cost in its catalogue file).
    Chip,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::serving::FrameworkChoice;

    #[test]
    fn sglang_shares_its_prefill_budget_over_attention_data_parallel_replicas() {
        use crate::parallel::Parallelism;
        let h200 = crate::Catalogue::builtin().chip("h200").unwrap();
        let sglang = Assumptions {
            framework: FrameworkChoice::Given(Framework::Sglang),
            ..Assumptions::default()
        };
        let dp_attention = Parallelism {
            tp: 1,
            pp: 1,
            dp: 8,
            ep: 8,
        };
        let tp8 = Parallelism {
            tp: 8,
            pp: 1,
            dp: 1,
            ep: 8,
        };
        // SGLang's 8,192 on an H200, shared by the eight replicas of one expert group.
        assert_eq!(sglang.prefill_chunk_per_replica(h200, dp_attention), 1024.0);
        assert_eq!(sglang.prefill_chunk_per_replica(h200, tp8), 8192.0);
        // A budget the user states is per replica; other frameworks do not divide.
        let stated = sglang.pin("prefill_chunk_tokens", 4096.0);
        assert_eq!(stated.prefill_chunk_per_replica(h200, dp_attention), 4096.0);
        let trtllm = Assumptions {
            framework: FrameworkChoice::Given(Framework::TrtLlm),
            ..Assumptions::default()
        };
        assert_eq!(trtllm.prefill_chunk_per_replica(h200, dp_attention), 8192.0);
    }
}
