//! Numbers as the page shows them. Nothing non-finite ever reaches the screen: a
//! missing or broken value reads as an em dash. Quantities come in typed
//! (`disagg_engine::units`) and leave with their unit.

use disagg_engine::disagg::tpot::Tpot;
use disagg_engine::disagg::ttft::{Ttft, TtftParts};
use disagg_engine::sweep::SloAt;
use disagg_engine::units::{Bytes, Joules, Seconds, TokensPerSecond, UsdPerMtok};

pub const MISSING: &str = "—";

/// Three significant figures, thousands separated, no exponent for everyday sizes.
pub fn sig3(v: f64) -> String {
    if !v.is_finite() {
        return MISSING.into();
    }
    let a = v.abs();
    if a == 0.0 {
        return "0".into();
    }
    if !(1e-3..1e12).contains(&a) {
        return format!("{v:.2e}");
    }
    let digits = a.log10().floor() as i32;
    let decimals = (2 - digits).max(0) as usize;
    let rounded = format!("{:.*}", decimals, v);
    if decimals == 0 {
        group_thousands(&rounded)
    } else {
        rounded
    }
}

fn group_thousands(integer: &str) -> String {
    let (sign, digits) = match integer.strip_prefix('-') {
        Some(d) => ("-", d),
        None => ("", integer),
    };
    let mut out = String::new();
    for (i, ch) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(ch);
    }
    format!("{sign}{out}")
}

/// A count, thousands separated: 186,382.
pub fn count(n: u64) -> String {
    group_thousands(&n.to_string())
}

/// `sig3` with a unit, or the dash alone.
pub fn with_unit(v: f64, unit: &str) -> String {
    if v.is_finite() {
        format!("{} {unit}", sig3(v))
    } else {
        MISSING.into()
    }
}

/// A token rate, without its unit (the column or label names it).
pub fn rate(v: TokensPerSecond) -> String {
    sig3(v.value())
}

/// Energy per token, or the dash where a chip has no published power.
pub fn joules(v: Option<Joules>) -> String {
    v.map_or_else(|| MISSING.into(), |v| with_unit(v.value(), "J"))
}

/// A price per million tokens, or the dash where a chip has no public price.
pub fn usd_per_mtok(v: Option<UsdPerMtok>) -> String {
    match v {
        Some(v) if v.is_finite() => format!("${}", sig3(v.value())),
        _ => MISSING.into(),
    }
}

/// Seconds as ms below ten seconds, else seconds.
pub fn duration(t: Seconds) -> String {
    let s = t.value();
    if !s.is_finite() {
        MISSING.into()
    } else if s < 10.0 {
        with_unit(s * 1e3, "ms")
    } else {
        with_unit(s, "s")
    }
}

/// "184 ms / 310 ms": TTFT's median and 90th percentile over requests.
pub fn ttft_spread(t: &Ttft) -> String {
    median_and_p90(t.quantile(0.5), t.quantile(0.9))
}

/// What a latency limit holds, as the page's selector reads.
pub fn slo_at_label(a: SloAt) -> &'static str {
    match a {
        SloAt::Mean => "the mean over requests",
        SloAt::P90 => "the 90th percentile (p90)",
    }
}

/// "46.8 ms / 48.4 ms": TPOT's median and 90th percentile over requests.
pub fn tpot_spread(t: &Tpot) -> String {
    median_and_p90(t.quantile(0.5), t.quantile(0.9))
}

fn median_and_p90(p50: Seconds, p90: Seconds) -> String {
    format!("{} / {}", duration(p50), duration(p90))
}

/// "waiting for other prompts 44.6 ms, own prefill 184 ms, first step 23.6 ms": TTFT's
/// parts that take any time, in the order a request lives them.
pub fn ttft_parts(p: &TtftParts) -> String {
    let parts: Vec<String> = p
        .named()
        .iter()
        .filter(|(_, t)| t.value() > 0.0)
        .map(|(name, t)| format!("{name} {}", duration(*t)))
        .collect();
    if parts.is_empty() {
        MISSING.into()
    } else {
        parts.join(", ")
    }
}

pub fn bytes(b: Bytes) -> String {
    let b = b.value();
    if !b.is_finite() {
        return MISSING.into();
    }
    if b >= 1e12 {
        with_unit(b / 1e12, "TB")
    } else if b >= 1e9 {
        with_unit(b / 1e9, "GB")
    } else {
        with_unit(b / 1e6, "MB")
    }
}

pub fn percent(fraction: f64) -> String {
    if fraction.is_finite() {
        format!("{:.0}%", fraction * 100.0)
    } else {
        MISSING.into()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tpot_reads_as_its_median_and_p90() {
        use disagg_engine::disagg::tpot::Interruptions;
        // 9 of 11 other 1 ms steps inside a 99-interval generation on average: the
        // median at the mean, the p90 at most 2 more steps, 2 ms / 99, above it.
        let t = Tpot {
            mean: Seconds::from_ms(20.0),
            interruptions: Interruptions::closed_loop(
                Seconds::from_ms(9.0),
                Seconds::from_ms(12.0),
                Seconds::from_ms(1.0),
                99.0,
            ),
        };
        let shown = tpot_spread(&t);
        assert!(
            shown.starts_with(&duration(Seconds::from_ms(20.0))),
            "{shown}"
        );
        assert_eq!(
            shown,
            format!(
                "{} / {}",
                duration(t.quantile(0.5)),
                duration(t.quantile(0.9))
            )
        );
        assert!(
            t.quantile(0.9) > t.mean && t.quantile(0.9).value() <= 0.020 + 0.002 / 99.0 + 1e-15
        );
        // Nothing interrupts: one figure twice.
        let steady = tpot_spread(&Tpot::steady(Seconds::from_ms(15.0)));
        let once = duration(Seconds::from_ms(15.0));
        assert_eq!(steady, format!("{once} / {once}"));
    }

    #[test]
    fn ttft_reads_as_its_spread_and_the_parts_that_take_time() {
        use disagg_engine::disagg::ttft::Wait;
        let t = Ttft {
            parts: TtftParts {
                prefill_wait: Seconds::from_ms(40.0),
                prefill: Seconds::from_ms(180.0),
                first_step: Seconds::from_ms(20.0),
                ..TtftParts::default()
            },
            wait: Wait::Cohort {
                step: Seconds::from_ms(180.0),
                prompts: 2.0,
                seqs: 4.0,
            },
        };
        // p50: the 2nd of 4 prompts waits 90 ms x 2 - 180 ms = 0; p90: the 4th waits 180 ms.
        assert_eq!(
            ttft_spread(&t),
            format!(
                "{} / {}",
                duration(Seconds::from_ms(200.0)),
                duration(Seconds::from_ms(380.0))
            )
        );
        let parts = ttft_parts(&t.parts);
        assert!(
            parts.starts_with("waiting for other prompts") && parts.contains("first step"),
            "{parts}"
        );
        assert!(
            !parts.contains("queue") && !parts.contains("KV transfer"),
            "{parts}"
        );
        assert_eq!(ttft_parts(&TtftParts::default()), MISSING);
    }

    #[test]
    fn three_significant_figures() {
        assert_eq!(sig3(0.0), "0");
        assert_eq!(sig3(1.23456), "1.23");
        assert_eq!(sig3(12.345), "12.3");
        assert_eq!(sig3(123.45), "123");
        assert_eq!(sig3(186_382.0), "186,382");
        assert_eq!(sig3(-4321.0), "-4,321");
        assert_eq!(sig3(0.0123), "0.0123");
        assert_eq!(sig3(3.0e-5), "3.00e-5");
    }

    #[test]
    fn nothing_non_finite_is_shown() {
        for v in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
            for s in [
                sig3(v),
                with_unit(v, "ms"),
                usd_per_mtok(Some(UsdPerMtok::new(v))),
                duration(Seconds::new(v)),
                bytes(Bytes::new(v)),
                rate(TokensPerSecond::new(v)),
                joules(Some(Joules::new(v))),
                percent(v),
            ] {
                assert_eq!(s, MISSING);
            }
        }
        assert_eq!(joules(None), MISSING);
        assert_eq!(usd_per_mtok(None), MISSING);
    }

    #[test]
    fn units_scale() {
        assert_eq!(duration(Seconds::new(0.0123)), "12.3 ms");
        assert_eq!(duration(Seconds::new(42.0)), "42.0 s");
        assert_eq!(bytes(Bytes::new(80e9)), "80.0 GB");
        assert_eq!(bytes(Bytes::new(1.5e12)), "1.50 TB");
        assert_eq!(usd_per_mtok(Some(UsdPerMtok::new(1.234))), "$1.23");
        assert_eq!(joules(Some(Joules::new(4.5))), "4.50 J");
        assert_eq!(percent(0.384), "38%");
        assert_eq!(count(28), "28");
        assert_eq!(count(1_234_567), "1,234,567");
    }
}
