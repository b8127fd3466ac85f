//! Numeric formats of weights, activations and the KV cache.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A storage format. `Int8` and `Int4` are taken as weight-only formats (GPTQ, AWQ,
/// GGUF): their matmuls run at the 16-bit rate after dequantisation. `Fp8`, `Fp4`,
/// `Mxfp4` and `Nvfp4` run their matmuls at the low-precision rate where the chip has
/// one. `Fp4` is 4 bits flat, its block scales not counted (the meaning it always had);
/// `Mxfp4` and `Nvfp4` are the two block-scaled 4-bit formats with their scales counted;
/// `Fp8Block` is FP8 with one scale per 128 x 128 block of a weight matrix, the format
/// DeepSeek-V3's checkpoints ship (`audit/MODEL.md` section 4.1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DType {
    Bf16,
    Fp16,
    Fp8,
    Int8,
    Fp4,
    Int4,
    /// OCP MX FP4: E2M1 elements, one E8M0 scale per 32 (4 + 8/32 = 4.25 bits).
    Mxfp4,
    /// NVIDIA NVFP4: E2M1 elements, one E4M3 scale per 16 (4 + 8/16 = 4.5 bits; the one
    /// FP32 scale per tensor is negligible and not counted).
    Nvfp4,
    /// E4M3 elements, one FP32 scale per 128 x 128 block of a weight matrix (8 + 32/16384
    /// bits), as DeepSeek-V3's report quantises weights; activations are scaled per 128
    /// channels of a token at run time, which stores nothing.
    #[serde(rename = "fp8-block")]
    Fp8Block,
}

/// Elements that share one block scale, and the scale's bits, of the block-scaled
/// formats: the OCP Microscaling spec v1.0 (MXFP4: 32 elements, E8M0) and NVIDIA's NVFP4
/// (16 elements, FP8 E4M3).
const MXFP4_BLOCK: (f64, f64) = (32.0, 8.0);
const NVFP4_BLOCK: (f64, f64) = (16.0, 8.0);
/// Elements of a 128 x 128 block of a weight matrix and its FP32 scale (DeepSeek-V3
/// technical report, arXiv 2412.19437, section 3.3.2).
const FP8_BLOCK: (f64, f64) = (128.0 * 128.0, 32.0);

/// Bits per element of a 4-bit format whose blocks of `block.0` elements share one
/// `block.1`-bit scale.
fn block_scaled_fp4(block: (f64, f64)) -> f64 {
    block_scaled(4.0, block)
}

/// Bits per element of `element_bits`-bit elements whose blocks of `block.0` share one
/// `block.1`-bit scale.
fn block_scaled(element_bits: f64, block: (f64, f64)) -> f64 {
    element_bits + block.1 / block.0
}

/// The tensor-core rate a matmul uses, looked up in the chip's peak table.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum ComputeRate {
    Bf16,
    Fp8,
    Fp4,
}

impl DType {
    pub const ALL: [DType; 9] = [
        DType::Bf16,
        DType::Fp16,
        DType::Fp8,
        DType::Int8,
        DType::Fp4,
        DType::Int4,
        DType::Mxfp4,
        DType::Nvfp4,
        DType::Fp8Block,
    ];

    /// Whether a KV cache can be held in this format: every one but block-scaled FP8,
    /// whose scales belong to 128 x 128 blocks of a weight matrix.
    pub fn holds_kv(self) -> bool {
        self != DType::Fp8Block
    }

    /// The words refusing this format for a KV cache, naming the one to take instead.
    pub fn kv_refusal(self) -> String {
        format!("{self} is a weight format (one scale per 128 x 128 block of a weight matrix); a KV cache in FP8 is fp8")
    }

    pub fn bits(self) -> f64 {
        match self {
            DType::Bf16 | DType::Fp16 => 16.0,
            DType::Fp8 | DType::Int8 => 8.0,
            DType::Fp4 | DType::Int4 => 4.0,
            DType::Mxfp4 => block_scaled_fp4(MXFP4_BLOCK),
            DType::Nvfp4 => block_scaled_fp4(NVFP4_BLOCK),
            DType::Fp8Block => block_scaled(8.0, FP8_BLOCK),
        }
    }

    pub fn bytes(self) -> f64 {
        self.bits() / 8.0
    }

    pub fn compute_rate(self) -> ComputeRate {
        match self {
            DType::Bf16 | DType::Fp16 | DType::Int8 | DType::Int4 => ComputeRate::Bf16,
            DType::Fp8 | DType::Fp8Block => ComputeRate::Fp8,
            DType::Fp4 | DType::Mxfp4 | DType::Nvfp4 => ComputeRate::Fp4,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            DType::Bf16 => "bf16",
            DType::Fp16 => "fp16",
            DType::Fp8 => "fp8",
            DType::Int8 => "int8",
            DType::Fp4 => "fp4",
            DType::Int4 => "int4",
            DType::Mxfp4 => "mxfp4",
            DType::Nvfp4 => "nvfp4",
            DType::Fp8Block => "fp8-block",
        }
    }
}

impl fmt::Display for DType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for DType {
    type Err = String;
    fn from_str(s: &str) -> Result<DType, String> {
        let lower = s.trim().to_ascii_lowercase();
        DType::ALL
            .into_iter()
            .find(|d| d.name() == lower)
            .ok_or_else(|| {
                format!(
                    "unknown dtype '{s}'; valid: {}",
                    DType::ALL.map(|d| d.name()).join(", ")
                )
            })
    }
}

impl ComputeRate {
    pub fn name(self) -> &'static str {
        match self {
            ComputeRate::Bf16 => "bf16",
            ComputeRate::Fp8 => "fp8",
            ComputeRate::Fp4 => "fp4",
        }
    }
}

/// Weight storage: a format plus an optional bits-per-weight override for block
/// formats whose scales add to the nominal width (GGUF Q4_0 is about 4.5 bits,
/// Q4_K_M about 4.85).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct WeightFormat {
    pub dtype: DType,
    pub bits_override: Option<f64>,
}

impl WeightFormat {
    pub fn new(dtype: DType) -> WeightFormat {
        WeightFormat {
            dtype,
            bits_override: None,
        }
    }

    pub fn bytes_per_weight(self) -> f64 {
        self.bits_override.unwrap_or(self.dtype.bits()) / 8.0
    }
}

/// The weight format of each component of a model (`audit/MODEL.md` section 4.1):
/// attention and the other non-expert weights (`dense`: attention projections, the FFNs
/// of layers without experts, routers), the experts of MoE layers (routed and shared),
/// the attention output projection (`attn_out`, which some checkpoints quantise while the
/// rest of attention stays wide), and the vocabulary tables (the LM head and the input
/// embedding). A setup that names no component format has every component at `dense`:
/// one format for the whole model.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Precision {
    pub dense: WeightFormat,
    pub experts: WeightFormat,
    pub attn_out: WeightFormat,
    pub lm_head: WeightFormat,
}

impl Precision {
    /// One format for every component.
    pub fn uniform(weights: WeightFormat) -> Precision {
        Precision {
            dense: weights,
            experts: weights,
            attn_out: weights,
            lm_head: weights,
        }
    }

    /// `dense` with the components named given their own dtype; `None` keeps the dense
    /// format (bits override included).
    pub fn with(dense: WeightFormat, experts: Option<DType>, lm_head: Option<DType>) -> Precision {
        Precision {
            dense,
            experts: experts.map_or(dense, WeightFormat::new),
            attn_out: dense,
            lm_head: lm_head.map_or(dense, WeightFormat::new),
        }
    }

    /// This precision with the attention output projection in `attn_out`; `None` keeps
    /// it at the dense format.
    pub fn with_attn_out(self, attn_out: Option<DType>) -> Precision {
        Precision {
            attn_out: attn_out.map_or(self.dense, WeightFormat::new),
            ..self
        }
    }

    /// Bytes of `w.all` weights, of which `w.experts` are expert weights, `w.attn_out`
    /// attention output projections and `w.lm_head` vocabulary-table weights, the rest
    /// at the dense format: every weight at the dense width, plus what each other
    /// component's width adds or saves. Equal to `(all - experts - attn_out - lm_head)
    /// b_dense + experts b_experts + attn_out b_out + lm_head b_head`, and with one
    /// format for all exactly `all b_dense` (each correction is then a zero).
    pub fn bytes(&self, w: ComponentWeights) -> f64 {
        let dense = self.dense.bytes_per_weight();
        w.all * dense
            + w.experts * (self.experts.bytes_per_weight() - dense)
            + w.attn_out * (self.attn_out.bytes_per_weight() - dense)
            + w.lm_head * (self.lm_head.bytes_per_weight() - dense)
    }

    /// Whether any component differs from the dense format.
    pub fn is_mixed(&self) -> bool {
        self.experts != self.dense || self.attn_out != self.dense || self.lm_head != self.dense
    }

    /// The formats in words: `fp8` alone, or `fp8, experts nvfp4, LM head bf16`.
    pub fn describe(&self) -> String {
        let name = |w: WeightFormat| match w.bits_override {
            Some(bits) => format!("{} at {bits} bits", w.dtype.name()),
            None => w.dtype.name().to_string(),
        };
        let mut out = name(self.dense);
        if self.experts != self.dense {
            out += &format!(", experts {}", name(self.experts));
        }
        if self.attn_out != self.dense {
            out += &format!(", attention output {}", name(self.attn_out));
        }
        if self.lm_head != self.dense {
            out += &format!(", LM head {}", name(self.lm_head));
        }
        out
    }
}

/// Weight counts on one chip by component, for [`Precision::bytes`]: `all` of them, and
/// the parts of `all` that are experts, attention output projections and vocabulary
/// tables.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct ComponentWeights {
    pub all: f64,
    pub experts: f64,
    pub attn_out: f64,
    pub lm_head: f64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_name_and_rejects_others() {
        for d in DType::ALL {
            assert_eq!(d.name().parse::<DType>(), Ok(d));
        }
        let err = "fp6".parse::<DType>().unwrap_err();
        assert!(
            err.contains("bf16, fp16, fp8, int8, fp4, int4, mxfp4, nvfp4, fp8-block"),
            "{err}"
        );
    }

    #[test]
    fn block_scaled_fp4_counts_its_scales() {
        // OCP MX v1.0: an 8-bit E8M0 scale per 32 E2M1 elements.
        assert_eq!(DType::Mxfp4.bits(), 4.25);
        assert_eq!(WeightFormat::new(DType::Mxfp4).bytes_per_weight(), 0.53125);
        // NVFP4: an 8-bit E4M3 scale per 16 E2M1 elements.
        assert_eq!(DType::Nvfp4.bits(), 4.5);
        // `fp4` keeps its flat 4 bits; all three run at the FP4 rate.
        assert_eq!(DType::Fp4.bits(), 4.0);
        for d in [DType::Fp4, DType::Mxfp4, DType::Nvfp4] {
            assert_eq!(d.compute_rate(), ComputeRate::Fp4);
        }
    }

    #[test]
    fn block_scaled_fp8_counts_one_fp32_scale_per_128_by_128_block() {
        assert_eq!(DType::Fp8Block.bits(), 8.0 + 32.0 / 16384.0);
        assert_eq!(DType::Fp8Block.compute_rate(), ComputeRate::Fp8);
        // The name a link, a flag and the validation table use, both ways.
        assert_eq!("FP8-Block".parse::<DType>(), Ok(DType::Fp8Block));
        assert_eq!(
            serde_json::to_string(&DType::Fp8Block).unwrap(),
            "\"fp8-block\""
        );
        assert_eq!(
            serde_json::from_str::<DType>("\"fp8-block\"").unwrap(),
            DType::Fp8Block
        );
    }

    #[test]
    fn precision_bytes_are_the_sum_of_the_components() {
        let p = Precision::with(
            WeightFormat::new(DType::Bf16),
            Some(DType::Mxfp4),
            Some(DType::Fp8),
        );
        // 100 weights: 60 expert (0.53125 B), 10 head (1 B), 30 dense (2 B).
        let counts = ComponentWeights {
            all: 100.0,
            experts: 60.0,
            attn_out: 8.0,
            lm_head: 10.0,
        };
        assert_eq!(p.bytes(counts), 60.0 * 0.53125 + 10.0 + 30.0 * 2.0);
        assert_eq!(p.describe(), "bf16, experts mxfp4, LM head fp8");
        // 8 of the 30 dense weights are attention output projections, in NVFP4 (0.5625 B).
        let v2 = p.with_attn_out(Some(DType::Nvfp4));
        assert!(v2.is_mixed());
        assert_eq!(
            v2.bytes(counts),
            60.0 * 0.53125 + 10.0 + 8.0 * 0.5625 + 22.0 * 2.0
        );
        assert_eq!(
            v2.describe(),
            "bf16, experts mxfp4, attention output nvfp4, LM head fp8"
        );
        assert_eq!(p.with_attn_out(None), p);
        // Unset components follow the dense format, bits override included, and the
        // sum is then the one product it always was.
        let q4 = WeightFormat {
            dtype: DType::Int4,
            bits_override: Some(4.85),
        };
        let same = Precision::with(q4, None, None);
        assert_eq!(same, Precision::uniform(q4));
        assert!(!same.is_mixed());
        let all = 1.234_567e9;
        let counts = ComponentWeights {
            all,
            experts: 0.7e9,
            attn_out: 0.05e9,
            lm_head: 0.1e9,
        };
        assert_eq!(same.bytes(counts), all * q4.bytes_per_weight());
    }

    #[test]
    fn bits_override_wins() {
        let q4_0 = WeightFormat {
            dtype: DType::Int4,
            bits_override: Some(4.5),
        };
        assert_eq!(q4_0.bytes_per_weight(), 0.5625);
        assert_eq!(WeightFormat::new(DType::Fp8).bytes_per_weight(), 1.0);
    }
}
