//! Every bound on a bundle's fields, checked before any work, each refusal naming the
//! field by its path. The bounds are `limits`' and the engine's own validators'.

use super::{refuse, Bundle, ModelSource};
use crate::catalogue::{Chip, ChipField, Links};
use crate::error::Result;
use crate::limits::{
    BITS_PER_WEIGHT, LINK_BYTES_PER_S, MAX_BATCH, MAX_CHIPS, MAX_CONFIG_BYTES, MAX_DRAFT_TOKENS,
    MAX_EAGLE_LAYERS, MAX_LATENCY_LIMIT_MS, MAX_LENGTH, MAX_MICRO_BATCHES, MAX_NAME_CHARS,
    MAX_OUTPUT_CV, MAX_SMS, MAX_SWEEP_CHIPS, MAX_SWEEP_CHIP_KINDS, MAX_TARGET_TOK_S_USER,
};
use crate::units::BytesPerSecond;
use std::ops::RangeInclusive;

/// `v` inside `range` (NaN never is), or a refusal of `field` stating the range.
fn within<T: PartialOrd + std::fmt::Display + Copy + Into<f64>>(
    field: &str,
    v: T,
    range: RangeInclusive<T>,
    unit: &str,
) -> Result<()> {
    if range.contains(&v) {
        Ok(())
    } else {
        Err(refuse(
            field,
            format!(
                "{} must lie between {} and {}{unit}",
                crate::error::echoed(v.into()),
                range.start(),
                range.end()
            ),
        ))
    }
}

/// A list's length as a count `within` can state (a bundle is bounded in bytes, so a
/// longer list than `u32::MAX` cannot occur; it would read as the largest count).
fn count(len: usize) -> u32 {
    u32::try_from(len).unwrap_or(u32::MAX)
}

/// A name or id: not empty, not long.
fn name(field: &str, s: &str) -> Result<()> {
    if s.trim().is_empty() || s.chars().count() > MAX_NAME_CHARS {
        return Err(refuse(
            field,
            format!("must be 1 to {MAX_NAME_CHARS} characters"),
        ));
    }
    Ok(())
}

fn model(field: &str, m: &ModelSource) -> Result<()> {
    match m {
        ModelSource::Catalogue(id) => name(&format!("{field}.catalogue"), id),
        ModelSource::Config { name: n, text } => {
            name(&format!("{field}.config.name"), n)?;
            if text.len() > MAX_CONFIG_BYTES {
                return Err(refuse(
                    format!("{field}.config.text"),
                    format!(
                        "the config is {} bytes; at most {MAX_CONFIG_BYTES}",
                        text.len()
                    ),
                ));
            }
            Ok(())
        }
    }
}

/// A chip record's numbers, each in the range its field allows (the ranges a user's
/// edit must meet, for the fields a user may edit).
pub(super) fn chip(at: &str, c: &Chip) -> Result<()> {
    name(&format!("{at}.id"), &c.id)?;
    if !c
        .id
        .chars()
        .all(|ch| ch.is_ascii_alphanumeric() || "-_.".contains(ch))
    {
        return Err(refuse(
            format!("{at}.id"),
            "letters, digits, '-', '_' and '.' only",
        ));
    }
    for (field, text) in [("name", &c.name), ("vendor", &c.vendor), ("form", &c.form)] {
        if text.chars().count() > MAX_NAME_CHARS {
            return Err(refuse(
                format!("{at}.{field}"),
                format!("at most {MAX_NAME_CHARS} characters"),
            ));
        }
    }
    for f in ChipField::ALL {
        if let Some(v) = f.get(c) {
            within(
                &format!("{at}.{}", f.id()),
                v,
                f.range(),
                &format!(" {}", f.unit()),
            )?;
        }
    }
    let link = |field: &str, bw: BytesPerSecond| {
        within(
            &format!("{at}.{field}"),
            bw.value(),
            LINK_BYTES_PER_S,
            " bytes per second",
        )
    };
    let latency = |field: &str, s: f64| within(&format!("{at}.{field}"), s, 0.0..=1.0, " s");
    if let Some(cold) = c.cold {
        within(
            &format!("{at}.cold.capacity"),
            cold.capacity.value(),
            1.0..=1e18,
            " bytes",
        )?;
        link("cold.bandwidth", cold.bandwidth)?;
    }
    for (field, l) in [("scale_up", c.scale_up), ("scale_out", c.scale_out)] {
        if let Some(l) = l {
            link(&format!("{field}.bandwidth"), l.bandwidth)?;
            latency(&format!("{field}.latency"), l.latency.value())?;
        }
    }
    within(
        &format!("{at}.scale_up_domain"),
        c.scale_up_domain,
        1..=MAX_CHIPS,
        " chips",
    )?;
    // Absent means unknown, not zero.
    if let Some(sms) = c.sm_count {
        within(&format!("{at}.sm_count"), sms, 1..=MAX_SMS, " SMs")?;
    }
    let e = c.efficiency;
    for (field, v) in [
        ("mfu", e.mfu),
        ("mfu_fp8", e.mfu_fp8),
        ("mfu_fp4", e.mfu_fp4),
        ("bw_eff", e.bw_eff),
        ("matmul_bf16", e.matmul_bf16),
        ("matmul_fp8", e.matmul_fp8),
        ("matmul_fp4", e.matmul_fp4),
    ] {
        if let Some(v) = v {
            within(&format!("{at}.efficiency.{field}"), v, 0.01..=1.0, "")?;
        }
    }
    if let Some(k) = e.kernel_overhead {
        latency("efficiency.kernel_overhead", k.value())?;
    }
    if let Some(k) = e.step_overhead {
        latency("efficiency.step_overhead", k.value())?;
    }
    Ok(())
}

impl Bundle {
    /// Every field within its bounds, or the first that is not, by name.
    pub(super) fn check(&self) -> Result<()> {
        model("model", &self.model)?;
        let w = &self.workload;
        within("workload.isl", w.isl, 1..=MAX_LENGTH, " tokens")?;
        within("workload.osl", w.osl, 1..=MAX_LENGTH, " tokens")?;
        if w.cached >= w.isl {
            return Err(refuse(
                "workload.cached",
                format!(
                    "{} must be fewer than workload.isl ({}): prefill computes at least one token",
                    w.cached, w.isl
                ),
            ));
        }
        within("workload.output_cv", w.output_cv, 0.0..=MAX_OUTPUT_CV, "")?;
        if let Some(bits) = self.weights.bits {
            within("weights.bits", bits, BITS_PER_WEIGHT, " bits per weight")?;
        }
        if !self.kv_dtype.holds_kv() {
            return Err(refuse("kv_dtype", self.kv_dtype.kv_refusal()));
        }
        let s = &self.speculation;
        if let Some(d) = &s.draft {
            model("speculation.draft", d)?;
        }
        if let Some(layers) = s.eagle_layers {
            if s.draft.is_some() {
                return Err(refuse(
                    "speculation.eagle_layers",
                    "an EAGLE head and a draft model exclude each other; keep one",
                ));
            }
            within(
                "speculation.eagle_layers",
                layers,
                1..=MAX_EAGLE_LAYERS,
                " layers",
            )?;
        }
        within("speculation.acceptance", s.acceptance, 0.0..=1.0, "")?;
        within(
            "speculation.draft_tokens",
            s.draft_tokens,
            1..=MAX_DRAFT_TOKENS,
            "",
        )?;
        if let Some(id) = &self.link.id {
            Links::builtin()
                .get(id)
                .map_err(|e| refuse("link.id", e.to_string()))?;
        }
        if let Some(g) = self.link.gbps {
            let bytes = BytesPerSecond::from_gbit_per_s(g).value();
            if !LINK_BYTES_PER_S.contains(&bytes) {
                return Err(refuse(
                    "link.gbps",
                    format!(
                        "{} must lie between {} and {} gigabits per second",
                        crate::error::echoed(g),
                        LINK_BYTES_PER_S.start() * 8.0 / 1e9,
                        LINK_BYTES_PER_S.end() * 8.0 / 1e9
                    ),
                ));
            }
        }
        let sw = &self.sweep;
        within("sweep.max_chips", sw.max_chips, 1..=MAX_SWEEP_CHIPS, "")?;
        if let Some(b) = sw.batch {
            within("sweep.batch", b, 1..=MAX_BATCH, "")?;
        }
        for (field, v, top) in [
            (
                "sweep.target_tok_s_user",
                sw.target_tok_s_user,
                MAX_TARGET_TOK_S_USER,
            ),
            ("sweep.ttft_ms", sw.ttft_ms, MAX_LATENCY_LIMIT_MS),
            ("sweep.tpot_ms", sw.tpot_ms, MAX_LATENCY_LIMIT_MS),
        ] {
            if let Some(v) = v {
                within(field, v, f64::MIN_POSITIVE..=top, "")?;
            }
        }
        within(
            "chips (their number)",
            count(self.chips.len()),
            1..=MAX_SWEEP_CHIP_KINDS as u32,
            " chips",
        )?;
        for (i, c) in self.chips.iter().enumerate() {
            let at = format!("chips[{i}]");
            chip(&at, c)?;
            if self.chips[..i]
                .iter()
                .any(|o| o.id.eq_ignore_ascii_case(&c.id))
            {
                return Err(refuse(
                    format!("{at}.id"),
                    format!("{} appears twice", c.id),
                ));
            }
        }
        self.assumptions
            .validate()
            .map_err(|e| refuse("assumptions", e.to_string()))?;
        if let Some(d) = &self.deployment {
            within("deployment.batch", d.batch, 1..=MAX_BATCH, "")?;
            within(
                "deployment.micro_batches",
                d.micro_batches,
                1..=MAX_MICRO_BATCHES,
                "",
            )?;
            within(
                "deployment.pools (their number)",
                count(d.pools.len()),
                1..=4,
                "",
            )?;
            for (i, p) in d.pools.iter().enumerate() {
                if !self
                    .chips
                    .iter()
                    .any(|c| c.id.eq_ignore_ascii_case(&p.chip))
                {
                    return Err(refuse(
                        format!("deployment.pools[{i}].chip"),
                        format!("{} is not among the bundle's chips", p.chip),
                    ));
                }
                let q = p.parallelism;
                for (field, v) in [("tp", q.tp), ("pp", q.pp), ("dp", q.dp), ("ep", q.ep)] {
                    within(
                        &format!("deployment.pools[{i}].parallelism.{field}"),
                        v,
                        1..=MAX_CHIPS,
                        "",
                    )?;
                }
            }
        }
        Ok(())
    }
}
