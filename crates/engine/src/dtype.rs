//! Numeric formats of weights, activations and the KV cache.

use serde::{Deserialize, Serialize};
use std::fmt;
use std::str::FromStr;

/// A storage format. `Int8` and `Int4` are taken as weight-only formats (GPTQ, AWQ,
/// GGUF): their matmuls run at the 16-bit rate after dequantisation. `Fp8` and `Fp4`
/// (FP8 e4m3, NVFP4, MXFP4) run their matmuls at the low-precision rate where the chip
/// has one.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum DType {
    Bf16,
    Fp16,
    Fp8,
    Int8,
    Fp4,
    Int4,
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
    pub const ALL: [DType; 6] = [
        DType::Bf16,
        DType::Fp16,
        DType::Fp8,
        DType::Int8,
        DType::Fp4,
        DType::Int4,
    ];

    pub fn bits(self) -> f64 {
        match self {
            DType::Bf16 | DType::Fp16 => 16.0,
            DType::Fp8 | DType::Int8 => 8.0,
            DType::Fp4 | DType::Int4 => 4.0,
        }
    }

    pub fn bytes(self) -> f64 {
        self.bits() / 8.0
    }

    pub fn compute_rate(self) -> ComputeRate {
        match self {
            DType::Bf16 | DType::Fp16 | DType::Int8 | DType::Int4 => ComputeRate::Bf16,
            DType::Fp8 => ComputeRate::Fp8,
            DType::Fp4 => ComputeRate::Fp4,
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_every_name_and_rejects_others() {
        for d in DType::ALL {
            assert_eq!(d.name().parse::<DType>(), Ok(d));
        }
        let err = "fp6".parse::<DType>().unwrap_err();
        assert!(err.contains("bf16, fp16, fp8, int8, fp4, int4"), "{err}");
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
