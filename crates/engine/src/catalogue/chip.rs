//! Accelerators: dense peaks per dtype, memory tiers, links, power and price, each
//! number with its provenance.

use super::provenance::{resolve, Dimension, Provenance, RawValue};
use crate::dtype::ComputeRate;
use crate::error::EngineError;
use crate::limits::MAX_SMS;
use crate::units::{Bytes, BytesPerSecond, FlopsPerSecond, Seconds, Usd, UsdPerHour, Watts};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MemoryTier {
    pub capacity: Bytes,
    pub bandwidth: BytesPerSecond,
}

/// One direction of a link, per chip.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Link {
    pub bandwidth: BytesPerSecond,
    pub latency: Seconds,
}

/// Calibrated efficiencies for one chip; `None` means the global default.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ChipEfficiency {
    pub mfu: Option<f64>,
    pub mfu_fp8: Option<f64>,
    pub mfu_fp4: Option<f64>,
    pub bw_eff: Option<f64>,
    pub kernel_overhead: Option<Seconds>,
    /// Fixed cost of one engine step on this chip, where its runtime is not a GPU
    /// serving engine's (a statically scheduled program); `None` = the global default.
    #[serde(default)]
    pub step_overhead: Option<Seconds>,
    /// The best BF16 matmul rate measured on this chip, as a share of its dense BF16
    /// peak (a measurement, not a fit: `ChipRates::for_chip` scales the global `mfu` by
    /// it, `audit/MODEL.md` section 1.1); `None` where nothing is measured.
    #[serde(default)]
    pub matmul_bf16: Option<f64>,
    /// The same for FP8 matmuls, as a share of the dense FP8 peak.
    #[serde(default)]
    pub matmul_fp8: Option<f64>,
    /// The same for FP4 matmuls (NVFP4 or MXFP4), as a share of the dense FP4 peak.
    #[serde(default)]
    pub matmul_fp4: Option<f64>,
}

/// What the fast tier is made of, which decides what the runtime holds beside the
/// weights and KV cache (`audit/MODEL.md` section 4.1).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MemoryKind {
    /// Off-chip DRAM (HBM, GDDR, LPDDR, unified memory) under a dynamic runtime: it
    /// keeps a reserve and the activations of one prefill chunk.
    #[default]
    Dram,
    /// On-chip SRAM under a compiler that schedules every tensor ahead of time
    /// (Groq's TSP, Cerebras' WSE): no allocator reserve, and activations stream
    /// through the chip one token's worth at a time.
    Sram,
}

impl MemoryKind {
    /// The runtime reserve (share of the fast tier) and the tokens whose activations
    /// the workspace holds at once, for a chip of this kind under `a`.
    pub fn workspace_rule(self, a: &crate::assumptions::Assumptions) -> (f64, f64) {
        match self {
            MemoryKind::Dram => (a.runtime_reserve, a.prefill_chunk_tokens),
            MemoryKind::Sram => (0.0, 1.0),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Chip {
    pub id: String,
    pub name: String,
    pub vendor: String,
    pub form: String,
    /// Dense peak at BF16/FP16.
    pub bf16: FlopsPerSecond,
    pub fp8: Option<FlopsPerSecond>,
    pub fp4: Option<FlopsPerSecond>,
    /// The fast tier: HBM, GDDR, on-chip SRAM, or unified memory.
    pub fast: MemoryTier,
    /// A slower tier weights can spill into (Grace LPDDR, DDR behind an ASIC).
    pub cold: Option<MemoryTier>,
    pub scale_up: Option<Link>,
    /// Chips one scale-up domain joins (8 for an HGX board, 72 for NVL72).
    pub scale_up_domain: u32,
    pub scale_out: Option<Link>,
    pub tdp: Option<Watts>,
    /// Power with nothing running (the runtime loaded); `None`: the cost settings'
    /// share of TDP (`cost::idle_power`).
    #[serde(default)]
    pub idle_power: Option<Watts>,
    pub price: Option<UsdPerHour>,
    /// The vendor's list price of one chip (or one device, for a desk machine).
    #[serde(default)]
    pub purchase_price: Option<Usd>,
    pub efficiency: ChipEfficiency,
    /// What the fast tier is made of (DRAM unless the chip's file says `sram`).
    #[serde(default)]
    pub memory_kind: MemoryKind,
    /// Streaming multiprocessors a GEMM's output tiles spread over (NVIDIA GPUs); `None`
    /// where the catalogue has no count, and then no wave quantisation is costed
    /// (`audit/MODEL.md` section 3.4).
    #[serde(default)]
    pub sm_count: Option<u32>,
    /// Field name -> where its number came from.
    pub provenance: BTreeMap<String, Provenance>,
}

/// Latency of a link hop when the catalogue gives none: NVLink-class fabrics sit near
/// a microsecond per hop, RDMA networks at a few.
pub const DEFAULT_SCALE_UP_LATENCY: Seconds = Seconds(1.5e-6);
pub const DEFAULT_SCALE_OUT_LATENCY: Seconds = Seconds(5.0e-6);

impl Chip {
    /// The dense peak a matmul at `rate` gets; a rate the chip lacks falls back to the
    /// next wider one it has (TPU v5p and Gaudi 3 run FP8 at the BF16 rate).
    pub fn peak(&self, rate: ComputeRate) -> FlopsPerSecond {
        match rate {
            ComputeRate::Bf16 => self.bf16,
            ComputeRate::Fp8 => self.fp8.unwrap_or(self.bf16),
            ComputeRate::Fp4 => self.fp4.or(self.fp8).unwrap_or(self.bf16),
        }
    }

    /// The link for a group of `chips` chips: scale-up inside one domain, scale-out
    /// beyond it. A chip with no link of either kind gets a PCIe-class fallback.
    pub fn link_for_group(&self, chips: u32) -> Link {
        let fallback = Link {
            bandwidth: BytesPerSecond::from_gb_per_s(25.0),
            latency: Seconds::from_us(10.0),
        };
        if chips <= self.scale_up_domain {
            self.scale_up.or(self.scale_out).unwrap_or(fallback)
        } else {
            self.scale_out.or(self.scale_up).unwrap_or(fallback)
        }
    }

    /// How many whole scale-up domains a group of `chips` spans, when a collective
    /// over it can go in two levels (scale-up inside each domain, scale-out between
    /// them): more than one domain, whole domains only, and a scale-up link to use.
    pub fn whole_domains(&self, chips: u32) -> Option<u32> {
        let domain = self.scale_up_domain.max(1);
        (chips > domain && chips % domain == 0 && self.scale_up.is_some()).then_some(chips / domain)
    }

    /// The link between two pools or nodes (scale-out when present).
    pub fn network_link(&self) -> Link {
        self.link_for_group(u32::MAX)
    }

    pub fn memory_capacity(&self) -> Bytes {
        self.fast.capacity + self.cold.map_or(Bytes::ZERO, |c| c.capacity)
    }
}

/// A chip file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct ChipFile {
    id: String,
    name: String,
    vendor: String,
    form: String,
    #[serde(default)]
    notes: Option<String>,
    sources: BTreeMap<String, String>,
    bf16_tflops: RawValue,
    fp8_tflops: Option<RawValue>,
    fp4_tflops: Option<RawValue>,
    memory: RawValue,
    memory_bandwidth: RawValue,
    cold_memory: Option<RawValue>,
    cold_memory_bandwidth: Option<RawValue>,
    scale_up_bandwidth: Option<RawValue>,
    scale_up_domain: Option<RawValue>,
    scale_up_latency: Option<RawValue>,
    scale_out_bandwidth: Option<RawValue>,
    scale_out_latency: Option<RawValue>,
    tdp: Option<RawValue>,
    idle_power: Option<RawValue>,
    price: Option<RawValue>,
    purchase_price: Option<RawValue>,
    mfu: Option<RawValue>,
    mfu_fp8: Option<RawValue>,
    mfu_fp4: Option<RawValue>,
    bw_eff: Option<RawValue>,
    kernel_overhead: Option<RawValue>,
    step_overhead: Option<RawValue>,
    matmul_bf16_tflops: Option<RawValue>,
    matmul_fp8_tflops: Option<RawValue>,
    matmul_fp4_tflops: Option<RawValue>,
    memory_kind: Option<MemoryKindFile>,
    sm_count: Option<RawValue>,
}

/// `[memory_kind]` as written: the kind and where the catalogue read it.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct MemoryKindFile {
    kind: MemoryKind,
    /// Keys into the file's `[sources]` table, comma-separated.
    source: String,
    #[serde(default)]
    #[allow(dead_code)]
    note: Option<String>,
}

/// The largest FP8/BF16 dense ratio a real chip has; above it a sparse figure slipped in.
pub const MAX_LOW_PRECISION_RATIO: f64 = 2.1;

impl ChipFile {
    pub(super) fn into_chip(self, file: &str) -> Result<Chip, EngineError> {
        let mut provenance = BTreeMap::new();
        let sources = &self.sources;
        let mut take = |field: &str, raw: &RawValue, dim: Dimension| -> Result<f64, EngineError> {
            let (si, prov) = resolve(file, field, raw, dim, sources)?;
            provenance.insert(field.to_string(), prov);
            Ok(si)
        };
        let mut take_opt = |field: &str,
                            raw: &Option<RawValue>,
                            dim: Dimension|
         -> Result<Option<f64>, EngineError> {
            raw.as_ref().map(|r| take(field, r, dim)).transpose()
        };
        let bad = |problem: String| EngineError::Catalogue {
            file: file.to_string(),
            problem,
        };

        let bf16 = take_opt(
            "bf16_tflops",
            &Some(self.bf16_tflops.clone()),
            Dimension::FlopRate,
        )?
        .unwrap_or_default();
        let fp8 = take_opt("fp8_tflops", &self.fp8_tflops, Dimension::FlopRate)?;
        let fp4 = take_opt("fp4_tflops", &self.fp4_tflops, Dimension::FlopRate)?;
        let memory =
            take_opt("memory", &Some(self.memory.clone()), Dimension::Bytes)?.unwrap_or_default();
        let memory_bw = take_opt(
            "memory_bandwidth",
            &Some(self.memory_bandwidth.clone()),
            Dimension::ByteRate,
        )?
        .unwrap_or_default();
        let cold_cap = take_opt("cold_memory", &self.cold_memory, Dimension::Bytes)?;
        let cold_bw = take_opt(
            "cold_memory_bandwidth",
            &self.cold_memory_bandwidth,
            Dimension::ByteRate,
        )?;
        let up_bw = take_opt(
            "scale_up_bandwidth",
            &self.scale_up_bandwidth,
            Dimension::ByteRate,
        )?;
        let up_domain = take_opt("scale_up_domain", &self.scale_up_domain, Dimension::Count)?;
        let up_lat = take_opt("scale_up_latency", &self.scale_up_latency, Dimension::Time)?;
        let out_bw = take_opt(
            "scale_out_bandwidth",
            &self.scale_out_bandwidth,
            Dimension::ByteRate,
        )?;
        let out_lat = take_opt(
            "scale_out_latency",
            &self.scale_out_latency,
            Dimension::Time,
        )?;
        let tdp = take_opt("tdp", &self.tdp, Dimension::Power)?;
        let idle_power = take_opt("idle_power", &self.idle_power, Dimension::Power)?;
        let price = take_opt("price", &self.price, Dimension::Price)?;
        let purchase_price = take_opt("purchase_price", &self.purchase_price, Dimension::Money)?;
        let matmul_bf16 = take_opt(
            "matmul_bf16_tflops",
            &self.matmul_bf16_tflops,
            Dimension::FlopRate,
        )?;
        let matmul_fp8 = take_opt(
            "matmul_fp8_tflops",
            &self.matmul_fp8_tflops,
            Dimension::FlopRate,
        )?;
        let matmul_fp4 = take_opt(
            "matmul_fp4_tflops",
            &self.matmul_fp4_tflops,
            Dimension::FlopRate,
        )?;
        let sm_count = take_opt("sm_count", &self.sm_count, Dimension::Count)?;
        let efficiency = ChipEfficiency {
            mfu: take_opt("mfu", &self.mfu, Dimension::Fraction)?,
            mfu_fp8: take_opt("mfu_fp8", &self.mfu_fp8, Dimension::Fraction)?,
            mfu_fp4: take_opt("mfu_fp4", &self.mfu_fp4, Dimension::Fraction)?,
            bw_eff: take_opt("bw_eff", &self.bw_eff, Dimension::Fraction)?,
            kernel_overhead: take_opt("kernel_overhead", &self.kernel_overhead, Dimension::Time)?
                .map(Seconds),
            step_overhead: take_opt("step_overhead", &self.step_overhead, Dimension::Time)?
                .map(Seconds),
            // Stored as shares of the peaks, so that a user's edit of a peak keeps the
            // measured share rather than the measured rate.
            matmul_bf16: matmul_bf16.map(|m| m / bf16),
            matmul_fp8: matmul_fp8.and_then(|m| fp8.map(|peak| m / peak)),
            matmul_fp4: matmul_fp4.and_then(|m| fp4.map(|peak| m / peak)),
        };
        let memory_kind = match &self.memory_kind {
            None => MemoryKind::Dram,
            Some(m) => {
                let keys: Vec<&str> = m.source.split(',').map(str::trim).collect();
                if let Some(k) = keys.iter().find(|k| !self.sources.contains_key(**k)) {
                    return Err(bad(format!(
                        "memory_kind: source '{k}' is not in the file's [sources]"
                    )));
                }
                m.kind
            }
        };

        if bf16 <= 0.0 || memory <= 0.0 || memory_bw <= 0.0 {
            return Err(bad(
                "bf16_tflops, memory and memory_bandwidth must be positive".into(),
            ));
        }
        // FP4 is left unchecked: Blackwell Ultra runs it at 3x FP8, so no ratio separates
        // a dense FP4 figure from a sparse one.
        if let Some(fp8) = fp8 {
            if fp8 > MAX_LOW_PRECISION_RATIO * bf16 {
                return Err(bad(format!(
                    "fp8 peak {:.0} TFLOPS is more than {MAX_LOW_PRECISION_RATIO}x the BF16 peak {:.0}: a sparse figure?",
                    fp8 / 1e12,
                    bf16 / 1e12
                )));
            }
        }
        for (name, frac) in [
            ("mfu", efficiency.mfu),
            ("mfu_fp8", efficiency.mfu_fp8),
            ("mfu_fp4", efficiency.mfu_fp4),
            ("bw_eff", efficiency.bw_eff),
        ] {
            if let Some(f) = frac {
                if !(0.01..=1.0).contains(&f) {
                    return Err(bad(format!("{name} {f} must lie in (0, 1]")));
                }
            }
        }
        // A measured matmul rate is at most the dense peak of its dtype: above it stands a
        // sparse figure or another chip's number.
        for (name, measured, peak) in [
            ("matmul_bf16_tflops", matmul_bf16, Some(bf16)),
            ("matmul_fp8_tflops", matmul_fp8, fp8),
            ("matmul_fp4_tflops", matmul_fp4, fp4),
        ] {
            match (measured, peak) {
                (Some(m), Some(p)) if m > 0.0 && m <= p => {}
                (Some(m), Some(p)) => {
                    return Err(bad(format!(
                        "{name} {:.1} TFLOPS must lie in (0, the dense peak {:.1}]",
                        m / 1e12,
                        p / 1e12
                    )))
                }
                (Some(_), None) => {
                    return Err(bad(format!("{name} needs the dtype's peak beside it")))
                }
                (None, _) => {}
            }
        }
        if let (Some(idle), Some(tdp)) = (idle_power, tdp) {
            if !(0.0..=tdp).contains(&idle) {
                return Err(bad(format!(
                    "idle_power {idle} W must lie between 0 and the TDP {tdp} W"
                )));
            }
        }
        let sm_count = match sm_count {
            None => None,
            Some(n) if n >= 1.0 && n.fract() == 0.0 && n <= MAX_SMS as f64 => Some(n as u32),
            Some(n) => return Err(bad(format!("sm_count {n} must be a whole number of SMs"))),
        };
        let cold = match (cold_cap, cold_bw) {
            (Some(c), Some(b)) => Some(MemoryTier {
                capacity: Bytes(c),
                bandwidth: BytesPerSecond(b),
            }),
            (None, None) => None,
            _ => {
                return Err(bad(
                    "cold_memory and cold_memory_bandwidth come together".into()
                ))
            }
        };
        let _ = &self.notes;
        Ok(Chip {
            id: self.id,
            name: self.name,
            vendor: self.vendor,
            form: self.form,
            bf16: FlopsPerSecond(bf16),
            fp8: fp8.map(FlopsPerSecond),
            fp4: fp4.map(FlopsPerSecond),
            fast: MemoryTier {
                capacity: Bytes(memory),
                bandwidth: BytesPerSecond(memory_bw),
            },
            cold,
            scale_up: up_bw.map(|b| Link {
                bandwidth: BytesPerSecond(b),
                latency: up_lat.map(Seconds).unwrap_or(DEFAULT_SCALE_UP_LATENCY),
            }),
            scale_up_domain: up_domain.map_or(1, |d| d.max(1.0) as u32),
            scale_out: out_bw.map(|b| Link {
                bandwidth: BytesPerSecond(b),
                latency: out_lat.map(Seconds).unwrap_or(DEFAULT_SCALE_OUT_LATENCY),
            }),
            tdp: tdp.map(Watts),
            idle_power: idle_power.map(Watts),
            price: price.map(UsdPerHour),
            purchase_price: purchase_price.map(Usd),
            efficiency,
            memory_kind,
            sm_count,
            provenance,
        })
    }
}
