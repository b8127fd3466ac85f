//! Physical quantities as `Copy` newtypes over `f64` in SI base units.
//!
//! Only the operations that make physical sense are implemented, so that
//! `Bytes / BytesPerSecond` is `Seconds` and `Bytes + Seconds` does not compile.
//! Conversion to display units (GB, TFLOPS, ms) happens at the edges through the
//! named constructors and accessors.

use serde::{Deserialize, Serialize};
use std::iter::Sum;
use std::ops::{Add, AddAssign, Div, Mul, Sub};

macro_rules! quantity {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, PartialOrd, Serialize, Deserialize)]
        #[serde(transparent)]
        pub struct $name(pub(crate) f64);

        impl $name {
            pub const ZERO: $name = $name(0.0);
            /// A quantity of `v` in the base SI unit (bytes, seconds, FLOP, ...).
            pub const fn new(v: f64) -> $name {
                $name(v)
            }
            /// The number in the base SI unit; display units have named accessors.
            pub const fn value(self) -> f64 {
                self.0
            }
            pub fn max(self, other: $name) -> $name {
                $name(self.0.max(other.0))
            }
            pub fn min(self, other: $name) -> $name {
                $name(self.0.min(other.0))
            }
            pub fn is_finite(self) -> bool {
                self.0.is_finite()
            }
            /// The total order of the underlying numbers (`f64::total_cmp`).
            pub fn total_cmp(&self, other: &$name) -> std::cmp::Ordering {
                self.0.total_cmp(&other.0)
            }
        }
        /// The number in the quantity's base unit, formatted like an `f64` (precision
        /// and width apply); the caller names the unit.
        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                std::fmt::Display::fmt(&self.0, f)
            }
        }
        impl Add for $name {
            type Output = $name;
            fn add(self, rhs: $name) -> $name {
                $name(self.0 + rhs.0)
            }
        }
        impl AddAssign for $name {
            fn add_assign(&mut self, rhs: $name) {
                self.0 += rhs.0;
            }
        }
        impl Sub for $name {
            type Output = $name;
            fn sub(self, rhs: $name) -> $name {
                $name(self.0 - rhs.0)
            }
        }
        impl Mul<f64> for $name {
            type Output = $name;
            fn mul(self, rhs: f64) -> $name {
                $name(self.0 * rhs)
            }
        }
        impl Div<f64> for $name {
            type Output = $name;
            fn div(self, rhs: f64) -> $name {
                $name(self.0 / rhs)
            }
        }
        /// The ratio of two like quantities is a plain number.
        impl Div for $name {
            type Output = f64;
            fn div(self, rhs: $name) -> f64 {
                self.0 / rhs.0
            }
        }
        impl Sum for $name {
            fn sum<I: Iterator<Item = $name>>(iter: I) -> $name {
                $name(iter.map(|q| q.0).sum())
            }
        }
    };
}

quantity!(
    /// A count of bytes.
    Bytes
);
quantity!(
    /// A duration in seconds.
    Seconds
);
quantity!(
    /// A count of floating-point operations (a multiply-add is two).
    Flops
);
quantity!(
    /// A compute rate.
    FlopsPerSecond
);
quantity!(
    /// A transfer rate.
    BytesPerSecond
);
quantity!(
    /// Power.
    Watts
);
quantity!(
    /// Energy.
    Joules
);
quantity!(
    /// A rental price.
    UsdPerHour
);
quantity!(
    /// Money.
    Usd
);
quantity!(
    /// A token rate (output or input tokens per second).
    TokensPerSecond
);
quantity!(
    /// A request rate.
    RequestsPerSecond
);
quantity!(
    /// A price per million tokens.
    UsdPerMtok
);

const GIGA: f64 = 1e9;
const TERA: f64 = 1e12;

impl Bytes {
    pub fn from_gb(gb: f64) -> Bytes {
        Bytes(gb * GIGA)
    }
    pub fn from_mib(mib: f64) -> Bytes {
        Bytes(mib * 1024.0 * 1024.0)
    }
    pub fn from_gib(gib: f64) -> Bytes {
        Bytes(gib * 1024.0 * 1024.0 * 1024.0)
    }
    pub fn gb(self) -> f64 {
        self.0 / GIGA
    }
}

impl Seconds {
    // Dividing by an exact power of ten rounds once; multiplying by the inexact 1e-6
    // rounds twice, and 200 µs would print as 0.00019999999999999998 s.
    pub fn from_ms(ms: f64) -> Seconds {
        Seconds(ms / 1e3)
    }
    pub fn from_us(us: f64) -> Seconds {
        Seconds(us / 1e6)
    }
    pub fn from_ns(ns: f64) -> Seconds {
        Seconds(ns / 1e9)
    }
    pub fn ms(self) -> f64 {
        self.0 * 1e3
    }
    pub fn us(self) -> f64 {
        self.0 * 1e6
    }
}

impl FlopsPerSecond {
    pub fn from_tflops(t: f64) -> FlopsPerSecond {
        FlopsPerSecond(t * TERA)
    }
    pub fn tflops(self) -> f64 {
        self.0 / TERA
    }
}

impl BytesPerSecond {
    pub fn from_gb_per_s(gbps: f64) -> BytesPerSecond {
        BytesPerSecond(gbps * GIGA)
    }
    /// Network links are quoted in gigabits per second.
    pub fn from_gbit_per_s(gbit: f64) -> BytesPerSecond {
        BytesPerSecond(gbit * GIGA / 8.0)
    }
    pub fn gb_per_s(self) -> f64 {
        self.0 / GIGA
    }
}

impl Div<BytesPerSecond> for Bytes {
    type Output = Seconds;
    fn div(self, rhs: BytesPerSecond) -> Seconds {
        Seconds(self.0 / rhs.0)
    }
}

impl Div<FlopsPerSecond> for Flops {
    type Output = Seconds;
    fn div(self, rhs: FlopsPerSecond) -> Seconds {
        Seconds(self.0 / rhs.0)
    }
}

impl Mul<Seconds> for Watts {
    type Output = Joules;
    fn mul(self, rhs: Seconds) -> Joules {
        Joules(self.0 * rhs.0)
    }
}

impl Mul<Seconds> for UsdPerHour {
    type Output = Usd;
    fn mul(self, rhs: Seconds) -> Usd {
        Usd(self.0 * rhs.0 / 3600.0)
    }
}

impl TokensPerSecond {
    /// `tokens` tokens over `time`.
    pub fn over(tokens: f64, time: Seconds) -> TokensPerSecond {
        TokensPerSecond(tokens / time.0)
    }
}

impl TokensPerSecond {
    /// The request rate of requests that carry `tokens_per_request` tokens each.
    pub fn per_request(self, tokens_per_request: f64) -> RequestsPerSecond {
        RequestsPerSecond(self.0 / tokens_per_request)
    }
}

impl RequestsPerSecond {
    /// The token rate of requests that carry `tokens` tokens each.
    pub fn tokens(self, tokens_per_request: f64) -> TokensPerSecond {
        TokensPerSecond(self.0 * tokens_per_request)
    }
}

impl UsdPerHour {
    /// What a million tokens cost at `rate`; `None` when nothing is produced.
    pub fn per_mtok(self, rate: TokensPerSecond) -> Option<UsdPerMtok> {
        (rate.0 > 0.0).then(|| UsdPerMtok(self.0 / (rate.0 * 3600.0) * 1e6))
    }
}

/// Energy per token: power over a token rate.
impl Div<TokensPerSecond> for Watts {
    type Output = Joules;
    fn div(self, rhs: TokensPerSecond) -> Joules {
        Joules(self.0 / rhs.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_over_bandwidth_is_time() {
        let t = Bytes::from_gb(16.0) / BytesPerSecond::from_gb_per_s(3350.0);
        assert!((t.ms() - 4.776).abs() < 0.001);
    }

    #[test]
    fn flops_over_rate_is_time() {
        let t = Flops(2.0e12) / FlopsPerSecond::from_tflops(1000.0);
        assert!((t.ms() - 2.0).abs() < 1e-12);
    }

    #[test]
    fn gigabits_are_an_eighth_of_gigabytes() {
        assert_eq!(BytesPerSecond::from_gbit_per_s(400.0).gb_per_s(), 50.0);
    }

    #[test]
    fn prices_per_million_tokens_and_energy_per_token() {
        // $3.60 an hour at 1,000 tok/s: 3.6 million tokens an hour, $1 per million.
        let p = UsdPerHour(3.6).per_mtok(TokensPerSecond(1000.0)).unwrap();
        assert!((p.0 - 1.0).abs() < 1e-12);
        assert!(UsdPerHour(3.6).per_mtok(TokensPerSecond(0.0)).is_none());
        assert_eq!(Watts(700.0) / TokensPerSecond(100.0), Joules(7.0));
        assert_eq!(
            RequestsPerSecond(2.0).tokens(500.0),
            TokensPerSecond(1000.0)
        );
    }

    #[test]
    fn price_times_time_is_money() {
        let cost = UsdPerHour(3.6) * Seconds(1000.0);
        assert!((cost.0 - 1.0).abs() < 1e-12);
    }
}
