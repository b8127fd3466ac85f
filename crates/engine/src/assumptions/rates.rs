//! The efficiencies in force on one chip ([`ChipRates`]): its calibrated overrides, or
//! the global ones scaled by its measured matmul share ([`MATMUL_REFERENCE`]), times its
//! serving framework's kernel factors; what the kernel multiplies a chip's peaks by.

use super::{Assumptions, BW_EFF, MFU};
use crate::catalogue::Chip;
use crate::dtype::ComputeRate;
use crate::serving::{AllToAllFloor, Defaults, Framework, KernelFactors};
use crate::units::{Bytes, Seconds};
use serde::{Deserialize, Serialize};

/// The measured matmul share of peak at which a chip sustains the global `mfu` unchanged
/// (`audit/MODEL.md` section 1.1): a chip whose best matmul reaches a share `s` of its
/// peak sustains `mfu * s / MATMUL_REFERENCE`. Fitted on calibration points only
/// (`examples/calibrate_matmul.rs`).
pub const MATMUL_REFERENCE: f64 = 0.67;

/// The efficiencies in force for one chip: its calibrated overrides where it has them,
/// the global defaults scaled by its measured matmul share where it has one, the global
/// defaults where neither.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct ChipRates {
    pub mfu_bf16: f64,
    pub mfu_fp8: f64,
    pub mfu_fp4: f64,
    pub bw_eff: f64,
    pub kernel_overhead: Seconds,
    /// The largest message the pool's serving framework's own all-reduce takes
    /// ([`crate::kernel::custom_all_reduce`]); `None`: NCCL's ring.
    pub custom_all_reduce: Option<Bytes>,
    /// The fixed time of the pool's serving framework's expert all-to-all phases, where
    /// its group sits on one peer-to-peer fabric ([`crate::kernel::expert_all_to_all`]);
    /// `None`: the link's latency alone.
    pub all_to_all_floor: Option<AllToAllFloor>,
}

impl ChipRates {
    /// The one place a pool's efficiencies are resolved: the chip's own, else the
    /// global ones, times its serving framework's kernel factors where it has them and
    /// the user pinned neither `mfu` nor `bw_eff` ([`Assumptions::kernel_factor`]).
    pub fn for_chip(chip: &Chip, a: &Assumptions) -> ChipRates {
        ChipRates::under(chip, a, a.framework_on(chip))
    }

    /// [`ChipRates::for_chip`] with the pool's framework and its defaults given.
    pub fn under(
        chip: &Chip,
        a: &Assumptions,
        framework: Option<(Framework, Defaults)>,
    ) -> ChipRates {
        let e = chip.efficiency;
        let measured = |share: Option<f64>| share.map(|s| (a.mfu * s / MATMUL_REFERENCE).min(1.0));
        let mfu = e.mfu.or(measured(e.matmul_bf16)).unwrap_or(a.mfu);
        // A dtype with neither an override nor a measurement takes the next wider one's.
        let mfu_fp8 = e.mfu_fp8.or(measured(e.matmul_fp8)).unwrap_or(mfu);
        ChipRates {
            mfu_bf16: mfu,
            mfu_fp8,
            mfu_fp4: e.mfu_fp4.or(measured(e.matmul_fp4)).unwrap_or(mfu_fp8),
            bw_eff: e.bw_eff.unwrap_or(a.bw_eff),
            kernel_overhead: e.kernel_overhead.unwrap_or(a.kernel_overhead),
            custom_all_reduce: framework.and_then(|(_, d)| d.custom_all_reduce),
            all_to_all_floor: framework.and_then(|(_, d)| d.all_to_all_floor),
        }
        .scaled(KernelFactors {
            compute: a.kernel_factor_under(chip, MFU, framework).map(|(_, m)| m),
            bandwidth: a
                .kernel_factor_under(chip, BW_EFF, framework)
                .map(|(_, m)| m),
        })
    }

    /// These rates with every MFU times `k.compute` and the bandwidth efficiency times
    /// `k.bandwidth`, each kept at most 1; a factor left out leaves its rates untouched
    /// to the bit.
    pub fn scaled(self, k: KernelFactors) -> ChipRates {
        let by = |v: f64, m: Option<f64>| m.map_or(v, |m| (v * m).min(1.0));
        ChipRates {
            mfu_bf16: by(self.mfu_bf16, k.compute),
            mfu_fp8: by(self.mfu_fp8, k.compute),
            mfu_fp4: by(self.mfu_fp4, k.compute),
            bw_eff: by(self.bw_eff, k.bandwidth),
            kernel_overhead: self.kernel_overhead,
            custom_all_reduce: self.custom_all_reduce,
            all_to_all_floor: self.all_to_all_floor,
        }
    }

    pub fn mfu(&self, rate: ComputeRate) -> f64 {
        match rate {
            ComputeRate::Bf16 => self.mfu_bf16,
            ComputeRate::Fp8 => self.mfu_fp8,
            ComputeRate::Fp4 => self.mfu_fp4,
        }
    }
}
