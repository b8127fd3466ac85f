//! A part of a sweep's cloud as the worker sends it to the page: compact, quick to
//! read, and exact to the last bit.
//!
//! As JSON, every point spells out each field's name and each number in decimal
//! (about 1.2 kB a point), and reading the decimals back exactly (`float_roundtrip`)
//! was most of what the page spent on a large sweep after the worker had finished it.
//! A [`Packed`] part holds each distinct value of the kinds that repeat from point to
//! point (axes, pools, texts, classes, cost bases, bottlenecks, limiters) once, and
//! each point as a row of bytes: every float as its own 64 bits, the integers, which
//! figures are present, the indices of its values in those tables, and the end of its
//! label (", batch 8": what comes before is the same for the deployment's other
//! batches, and is kept once as a text). [`Packed::points`] gives back the very points [`Packed::new`] took; bytes it
//! cannot read are an error, never a panic.

use base64::engine::general_purpose::STANDARD_NO_PAD;
use base64::Engine as _;
use disagg_engine::cost::CostBasis;
use disagg_engine::disagg::{Axis, DeploymentSpec, Figures, Limiter, PoolSpec};
use disagg_engine::kernel::Bottleneck;
use disagg_engine::sweep::{Class, SweepPoint};
use disagg_engine::units::{Joules, Seconds, TokensPerSecond, UsdPerHour, UsdPerMtok, Watts};
use serde::{Deserialize, Serialize};

/// Some of a sweep's points, packed.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Packed {
    axes: Vec<Axis>,
    pools: Vec<Vec<PoolSpec>>,
    /// Phrases, and labels up to their batch.
    texts: Vec<String>,
    classes: Vec<Class>,
    cost_bases: Vec<CostBasis>,
    bottlenecks: Vec<Bottleneck>,
    limiters: Vec<Limiter>,
    /// The number of points, then one row per point, in base64.
    rows: String,
}

impl Packed {
    pub fn new(points: &[SweepPoint]) -> Packed {
        let mut packed = Packed::default();
        let mut row = Row::default();
        row.u32(u32::try_from(points.len()).unwrap_or(u32::MAX));
        for p in points {
            packed.write(&mut row, p);
        }
        packed.rows = STANDARD_NO_PAD.encode(&row.0);
        packed
    }

    /// The points written, or what is wrong with the bytes.
    pub fn points(&self) -> Result<Vec<SweepPoint>, String> {
        let bytes = STANDARD_NO_PAD
            .decode(&self.rows)
            .map_err(|e| format!("the packed points are not base64: {e}"))?;
        let mut cursor = Cursor {
            bytes: &bytes,
            at: 0,
        };
        let count = cursor.u32()? as usize;
        // Every row takes more than a byte: a count beyond the bytes is refused before
        // anything is allocated for it.
        if count > bytes.len() {
            return Err(format!(
                "the packed points claim {count} rows in {} bytes",
                bytes.len()
            ));
        }
        let mut points = Vec::with_capacity(count);
        for _ in 0..count {
            points.push(self.read(&mut cursor)?);
        }
        if cursor.at != bytes.len() {
            return Err(format!(
                "the packed points end with {} bytes no row reads",
                bytes.len() - cursor.at
            ));
        }
        Ok(points)
    }

    fn write(&mut self, row: &mut Row, p: &SweepPoint) {
        // Every field named, here and in `read`: a field added to a point is a compile
        // error until it is packed.
        let SweepPoint {
            spec,
            label,
            phrase,
            class,
            meets_slo,
            figures,
        } = p;
        let DeploymentSpec {
            axis,
            pools,
            batch: spec_batch,
            micro_batches,
        } = spec;
        let Figures {
            batch,
            running,
            chips,
            ttft,
            tpot,
            ttft_p90,
            tpot_p90,
            tok_s_user,
            output_tok_s,
            input_tok_s,
            output_tok_s_per_chip,
            input_tok_s_per_chip,
            usd_per_hour,
            usd_per_mtok_output,
            usd_per_mtok_input,
            usd_per_mtok_blended,
            output_tok_s_per_usd_hour,
            own_usd_per_hour,
            own_usd_per_mtok_output,
            own_usd_per_mtok_input,
            own_usd_per_mtok_blended,
            cost_basis,
            watts,
            joules_per_output_token,
            joules_per_token,
            transfer,
            bottleneck,
            limiter,
            prefill_share,
        } = *figures;
        row.u32(index(&mut self.axes, axis));
        row.u32(index(&mut self.pools, pools));
        row.u32(*spec_batch);
        row.u32(*micro_batches);
        let (head, tail) = label.split_at(label.rfind(BATCH).unwrap_or(label.len()));
        row.u32(index(&mut self.texts, head));
        row.text(tail);
        row.u32(index(&mut self.texts, phrase));
        row.u32(index(&mut self.classes, class));
        row.flag(*meets_slo);
        row.u32(batch);
        row.u32(running);
        row.u32(chips);
        for v in [ttft, tpot, ttft_p90, tpot_p90] {
            row.f64(v.value());
        }
        for v in [
            tok_s_user,
            output_tok_s,
            input_tok_s,
            output_tok_s_per_chip,
            input_tok_s_per_chip,
        ] {
            row.f64(v.value());
        }
        for v in [usd_per_hour, own_usd_per_hour] {
            row.opt(v.map(UsdPerHour::value));
        }
        for v in [
            usd_per_mtok_output,
            usd_per_mtok_input,
            usd_per_mtok_blended,
            own_usd_per_mtok_output,
            own_usd_per_mtok_input,
            own_usd_per_mtok_blended,
        ] {
            row.opt(v.map(UsdPerMtok::value));
        }
        row.opt(output_tok_s_per_usd_hour);
        row.u32(index(&mut self.cost_bases, &cost_basis));
        row.opt(watts.map(Watts::value));
        for v in [joules_per_output_token, joules_per_token] {
            row.opt(v.map(Joules::value));
        }
        row.f64(transfer.value());
        row.u32(index(&mut self.bottlenecks, &bottleneck));
        row.u32(index(&mut self.limiters, &limiter));
        row.f64(prefill_share);
    }

    fn read(&self, c: &mut Cursor) -> Result<SweepPoint, String> {
        let spec = DeploymentSpec {
            axis: *pick(&self.axes, c.u32()?, "axis")?,
            pools: pick(&self.pools, c.u32()?, "pools")?.clone(),
            batch: c.u32()?,
            micro_batches: c.u32()?,
        };
        let head = pick(&self.texts, c.u32()?, "text")?;
        let label = [head.as_str(), c.text()?].concat();
        let phrase = pick(&self.texts, c.u32()?, "text")?.clone();
        let class = *pick(&self.classes, c.u32()?, "class")?;
        let meets_slo = c.flag()?;
        let (batch, running, chips) = (c.u32()?, c.u32()?, c.u32()?);
        let seconds = |c: &mut Cursor| c.f64().map(Seconds::new);
        let (ttft, tpot) = (seconds(c)?, seconds(c)?);
        let (ttft_p90, tpot_p90) = (seconds(c)?, seconds(c)?);
        let rate = |c: &mut Cursor| c.f64().map(TokensPerSecond::new);
        let tok_s_user = rate(c)?;
        let output_tok_s = rate(c)?;
        let input_tok_s = rate(c)?;
        let output_tok_s_per_chip = rate(c)?;
        let input_tok_s_per_chip = rate(c)?;
        let hourly = |c: &mut Cursor| c.opt().map(|v| v.map(UsdPerHour::new));
        let (usd_per_hour, own_usd_per_hour) = (hourly(c)?, hourly(c)?);
        let per_mtok = |c: &mut Cursor| c.opt().map(|v| v.map(UsdPerMtok::new));
        let usd_per_mtok_output = per_mtok(c)?;
        let usd_per_mtok_input = per_mtok(c)?;
        let usd_per_mtok_blended = per_mtok(c)?;
        let own_usd_per_mtok_output = per_mtok(c)?;
        let own_usd_per_mtok_input = per_mtok(c)?;
        let own_usd_per_mtok_blended = per_mtok(c)?;
        let output_tok_s_per_usd_hour = c.opt()?;
        let cost_basis = *pick(&self.cost_bases, c.u32()?, "cost basis")?;
        let watts = c.opt()?.map(Watts::new);
        let energy = |c: &mut Cursor| c.opt().map(|v| v.map(Joules::new));
        let (joules_per_output_token, joules_per_token) = (energy(c)?, energy(c)?);
        let transfer = seconds(c)?;
        let bottleneck = *pick(&self.bottlenecks, c.u32()?, "bottleneck")?;
        let limiter = *pick(&self.limiters, c.u32()?, "limiter")?;
        let prefill_share = c.f64()?;
        Ok(SweepPoint {
            spec,
            label,
            phrase,
            class,
            meets_slo,
            figures: Figures {
                batch,
                running,
                chips,
                ttft,
                tpot,
                ttft_p90,
                tpot_p90,
                tok_s_user,
                output_tok_s,
                input_tok_s,
                output_tok_s_per_chip,
                input_tok_s_per_chip,
                usd_per_hour,
                usd_per_mtok_output,
                usd_per_mtok_input,
                usd_per_mtok_blended,
                output_tok_s_per_usd_hour,
                own_usd_per_hour,
                own_usd_per_mtok_output,
                own_usd_per_mtok_input,
                own_usd_per_mtok_blended,
                cost_basis,
                watts,
                joules_per_output_token,
                joules_per_token,
                transfer,
                bottleneck,
                limiter,
                prefill_share,
            },
        })
    }
}

/// Where a label's own part starts: the deployment's batch.
const BATCH: &str = ", batch ";

/// `value`'s place in `table`, added at the end when new. Neighbouring points mostly
/// share their values, so the search runs from the end.
fn index<T: PartialEq<Q>, Q: ToOwned<Owned = T> + ?Sized>(table: &mut Vec<T>, value: &Q) -> u32 {
    let i = match table.iter().rposition(|t| t == value) {
        Some(i) => i,
        None => {
            table.push(value.to_owned());
            table.len() - 1
        }
    };
    u32::try_from(i).unwrap_or(u32::MAX)
}

fn pick<'a, T>(table: &'a [T], i: u32, what: &str) -> Result<&'a T, String> {
    table.get(i as usize).ok_or_else(|| {
        format!(
            "a packed point names {what} {i} of {} in its table",
            table.len()
        )
    })
}

/// A row's bytes, written little-endian.
#[derive(Default)]
struct Row(Vec<u8>);

impl Row {
    fn u32(&mut self, v: u32) {
        self.0.extend_from_slice(&v.to_le_bytes());
    }

    fn f64(&mut self, v: f64) {
        self.0.extend_from_slice(&v.to_bits().to_le_bytes());
    }

    fn flag(&mut self, v: bool) {
        self.0.push(u8::from(v));
    }

    fn opt(&mut self, v: Option<f64>) {
        self.flag(v.is_some());
        if let Some(v) = v {
            self.f64(v);
        }
    }

    fn text(&mut self, s: &str) {
        self.u32(u32::try_from(s.len()).unwrap_or(u32::MAX));
        self.0.extend_from_slice(s.as_bytes());
    }
}

/// Reads what [`Row`] wrote; running past the end is an error.
struct Cursor<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl Cursor<'_> {
    fn take<const N: usize>(&mut self) -> Result<[u8; N], String> {
        let end = self.at.saturating_add(N);
        let bytes = self.bytes.get(self.at..end).ok_or_else(|| self.short())?;
        self.at = end;
        // The slice is N bytes long.
        let mut out = [0; N];
        out.copy_from_slice(bytes);
        Ok(out)
    }

    fn short(&self) -> String {
        format!("the packed points stop short at byte {}", self.at)
    }

    fn u32(&mut self) -> Result<u32, String> {
        self.take().map(u32::from_le_bytes)
    }

    fn f64(&mut self) -> Result<f64, String> {
        self.take().map(|b| f64::from_bits(u64::from_le_bytes(b)))
    }

    fn flag(&mut self) -> Result<bool, String> {
        match self.take::<1>()? {
            [0] => Ok(false),
            [1] => Ok(true),
            [b] => Err(format!("a packed flag reads {b}, not 0 or 1")),
        }
    }

    fn opt(&mut self) -> Result<Option<f64>, String> {
        Ok(match self.flag()? {
            true => Some(self.f64()?),
            false => None,
        })
    }

    fn text(&mut self) -> Result<&str, String> {
        let len = self.u32()? as usize;
        let end = self.at.saturating_add(len);
        let bytes = self.bytes.get(self.at..end).ok_or_else(|| self.short())?;
        self.at = end;
        std::str::from_utf8(bytes).map_err(|_| "a packed label is not UTF-8".to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::explore;
    use crate::scenario::Scenario;
    use disagg_engine::Catalogue;

    fn same_bits(a: &[SweepPoint], b: &[SweepPoint]) {
        assert_eq!(a.len(), b.len());
        for (a, b) in a.iter().zip(b) {
            // Equal as values, and as JSON with every float's shortest decimal.
            assert_eq!(a, b);
            assert_eq!(
                serde_json::to_string(a).unwrap(),
                serde_json::to_string(b).unwrap()
            );
        }
    }

    /// Every axis, on a model with experts, chips with and without a rental price,
    /// ranked by rental prices without a purchase price and by ownership with one.
    fn clouds() -> Vec<Vec<SweepPoint>> {
        let mut clouds = Vec::new();
        for axis in Axis::ALL {
            for basis in [CostBasis::Rental, CostBasis::Ownership] {
                let mut s = Scenario {
                    model: "qwen3-30b-a3b".into(),
                    axis,
                    chips: ["h100-sxm", "mi300x", "gaudi3"].map(String::from).to_vec(),
                    max_chips: 16,
                    ..Scenario::default()
                };
                if basis == CostBasis::Ownership {
                    s.cost.capex_usd_per_chip = Some(25_000.0);
                    s.cost.basis = basis;
                }
                let cloud = explore(&s, Catalogue::builtin()).unwrap().cloud;
                assert!(!cloud.is_empty(), "{axis:?}");
                clouds.push(cloud);
            }
        }
        clouds
    }

    #[test]
    fn every_axis_sweep_reads_back_to_the_last_bit() {
        let clouds = clouds();
        let all: Vec<&SweepPoint> = clouds.iter().flatten().collect();
        // What the sweeps hold: each kind of optional figure both present and absent.
        for (what, present) in [
            (
                "a rental price",
                all.iter()
                    .map(|p| p.figures.usd_per_hour.is_some())
                    .collect::<Vec<_>>(),
            ),
            (
                "an ownership price",
                all.iter()
                    .map(|p| p.figures.own_usd_per_hour.is_some())
                    .collect(),
            ),
        ] {
            assert!(
                present.contains(&true) && present.contains(&false),
                "{what}"
            );
        }
        for cloud in &clouds {
            let packed = Packed::new(cloud);
            same_bits(&packed.points().unwrap(), cloud);
            // Through the JSON the worker sends it as, too.
            let text = serde_json::to_string(&packed).unwrap();
            let back: Packed = serde_json::from_str(&text).unwrap();
            same_bits(&back.points().unwrap(), cloud);
        }
        assert_eq!(Packed::new(&[]).points(), Ok(Vec::new()));
    }

    #[test]
    fn any_float_keeps_its_bits() {
        let mut p = clouds()[0][0].clone();
        let odd = [
            -0.0,
            f64::MIN_POSITIVE / 3.0,
            f64::MAX,
            f64::INFINITY,
            f64::from_bits(0x7ff8_0000_dead_beef),
            0.1 + 0.2,
        ];
        for v in odd {
            p.figures.ttft = Seconds::new(v);
            p.figures.prefill_share = v;
            p.figures.output_tok_s_per_usd_hour = Some(v);
            p.figures.joules_per_token = None;
            let back = Packed::new(&[p.clone()]).points().unwrap().remove(0);
            for (a, b) in [
                (back.figures.ttft.value(), v),
                (back.figures.prefill_share, v),
                (back.figures.output_tok_s_per_usd_hour.unwrap(), v),
            ] {
                assert_eq!(a.to_bits(), b.to_bits());
            }
            assert_eq!(back.figures.joules_per_token, None);
        }
    }

    #[test]
    fn labels_of_any_shape_read_back() {
        let p = clouds()[0][0].clone();
        let labels = [
            "",
            "no batch",
            ", batch ",
            "a, batch 1, batch 2",
            "ü, batch ∞",
        ];
        let points: Vec<SweepPoint> = labels
            .iter()
            .map(|l| SweepPoint {
                label: l.to_string(),
                ..p.clone()
            })
            .collect();
        same_bits(&Packed::new(&points).points().unwrap(), &points);
    }

    #[test]
    fn bad_bytes_are_errors_not_panics() {
        let cloud = &clouds()[2][..5];
        let packed = Packed::new(cloud);
        let bytes = STANDARD_NO_PAD.decode(&packed.rows).unwrap();
        let with = |bytes: &[u8]| Packed {
            rows: STANDARD_NO_PAD.encode(bytes),
            ..packed.clone()
        };
        // Cut anywhere, or one byte too many.
        for n in 0..bytes.len() {
            assert!(with(&bytes[..n]).points().is_err(), "cut at {n}");
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert!(with(&longer).points().unwrap_err().contains("no row reads"));
        // Every byte changed in turn: an error or some points, never a panic.
        for i in 0..bytes.len() {
            let mut changed = bytes.clone();
            changed[i] = changed[i].wrapping_add(0x81);
            let _ = with(&changed).points();
        }
        // A count beyond the bytes is refused before anything is allocated.
        let mut huge = bytes.clone();
        huge[..4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(with(&huge).points().unwrap_err().contains("claim"));
        // An index past a table, a table missing, text that is not base64.
        let no_limiters = Packed {
            limiters: Vec::new(),
            ..packed.clone()
        };
        assert!(no_limiters.points().unwrap_err().contains("limiter 0 of 0"));
        let not_base64 = Packed {
            rows: "*".into(),
            ..packed.clone()
        };
        assert!(not_base64.points().unwrap_err().contains("base64"));
    }
}
