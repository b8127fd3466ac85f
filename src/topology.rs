//! The topology drawing's geometry and words: pools as boxes side by side, their chips
//! as squares in rows of one scale-up domain, each pool's fabric as a bar under its
//! chips, the link between pools as a line, the busiest link marked. Plain logic,
//! tested natively; `ui::topology` only turns it into SVG.

use crate::format;
use disagg_engine::disagg::topology::{percent, LinkClass, LinkEnds, LinkUse, Topology};

/// Chips drawn per row: at most one scale-up domain, at most this many.
const ROW: u32 = 8;
/// Rows drawn per pool; chips beyond them are counted in words.
const ROWS: u32 = 6;
const CHIP: f64 = 14.0;
const GAP: f64 = 4.0;
const BOX_W: f64 = 200.0;
const BOX_GAP: f64 = 200.0;
const PAD: f64 = 12.0;
const TITLE_H: f64 = 40.0;
const BAR_H: f64 = 34.0;

#[derive(Clone, Debug, PartialEq)]
pub struct Drawing {
    pub width: f64,
    pub height: f64,
    pub pools: Vec<PoolBox>,
    pub links: Vec<LinkLine>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct PoolBox {
    pub x: f64,
    pub y: f64,
    pub w: f64,
    pub h: f64,
    /// "decode pool"
    pub title: String,
    /// "8x NVIDIA H200 SXM 141GB, TP8"
    pub subtitle: String,
    pub chips: Vec<(f64, f64)>,
    pub chip_size: f64,
    /// "+56 chips not drawn"
    pub more: Option<String>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct LinkLine {
    pub x1: f64,
    pub y1: f64,
    pub x2: f64,
    pub y2: f64,
    /// Beside the line: its kind and bandwidth.
    pub label: String,
    /// Below it: how busy.
    pub busy: String,
    /// The busiest link of the deployment.
    pub busiest: bool,
    /// A pool's own fabric (drawn as a bar) rather than a link between pools.
    pub within: bool,
}

/// One row of the links table.
#[derive(Clone, Debug, PartialEq)]
pub struct LinkRow {
    pub ends: String,
    pub class: &'static str,
    pub bandwidth: String,
    pub lanes: String,
    pub carries: &'static str,
    pub carried: String,
    pub busy: String,
    pub busiest: bool,
}

pub fn rows(t: &Topology) -> Vec<LinkRow> {
    t.links
        .iter()
        .enumerate()
        .map(|(i, l)| LinkRow {
            ends: l.ends_name(),
            class: l.class_name(),
            bandwidth: gb_s(l.bandwidth.gb_per_s()),
            lanes: l.lanes.to_string(),
            carries: l.carries_name(),
            carried: gb_s(l.carried.gb_per_s()),
            busy: percent(l.busy),
            busiest: t.busiest == Some(i),
        })
        .collect()
}

fn gb_s(v: f64) -> String {
    format!("{} GB/s", format::sig3(v))
}

fn short(l: &LinkUse) -> String {
    let class = match l.class {
        LinkClass::ScaleUp => "scale-up",
        LinkClass::ScaleOut => "scale-out",
        LinkClass::TwoLevel => "two-level",
        LinkClass::Stated => "stated link",
    };
    format!("{class}, {} per chip", gb_s(l.bandwidth.gb_per_s()))
}

/// Lays the topology out.
pub fn layout(t: &Topology) -> Drawing {
    let rows_of = |chips: u32, domain: u32| -> (u32, u32) {
        let per_row = domain.clamp(1, ROW);
        (per_row, chips.div_ceil(per_row).min(ROWS))
    };
    let tallest = t
        .pools
        .iter()
        .map(|p| rows_of(p.chips, p.scale_up_domain).1)
        .max()
        .unwrap_or(1);
    let chips_h = tallest as f64 * (CHIP + GAP);
    let box_h = TITLE_H + chips_h + BAR_H + PAD * 2.0;
    let mut pools = Vec::new();
    for (i, p) in t.pools.iter().enumerate() {
        let x = PAD + i as f64 * (BOX_W + BOX_GAP);
        let y = PAD;
        let (per_row, rows) = rows_of(p.chips, p.scale_up_domain);
        let drawn = (per_row * rows).min(p.chips);
        let chips = (0..drawn)
            .map(|c| {
                let (r, col) = (c / per_row, c % per_row);
                (
                    x + PAD + col as f64 * (CHIP + GAP),
                    y + TITLE_H + r as f64 * (CHIP + GAP),
                )
            })
            .collect();
        pools.push(PoolBox {
            x,
            y,
            w: BOX_W,
            h: box_h,
            title: format!("{} pool", p.role.name()),
            subtitle: format!("{}x {}, {}", p.chips, p.chip_name, p.parallelism),
            chips,
            chip_size: CHIP,
            more: (p.chips > drawn).then(|| format!("+{} chips not drawn", p.chips - drawn)),
        });
    }
    let links = t
        .links
        .iter()
        .enumerate()
        .filter_map(|(i, l)| {
            let busiest = t.busiest == Some(i);
            let busy = format!("{} busy", percent(l.busy));
            match l.ends {
                LinkEnds::Within(role) => {
                    let b = pools.iter().zip(&t.pools).find(|(_, n)| n.role == role)?.0;
                    let y = b.y + TITLE_H + chips_h + PAD / 2.0;
                    Some(LinkLine {
                        x1: b.x + PAD,
                        y1: y,
                        x2: b.x + b.w - PAD,
                        y2: y,
                        label: short(l),
                        busy,
                        busiest,
                        within: true,
                    })
                }
                LinkEnds::Between(a, z) => {
                    let find = |r| pools.iter().zip(&t.pools).find(|(_, n)| n.role == r);
                    let (a, z) = (find(a)?.0, find(z)?.0);
                    let (left, right) = if a.x <= z.x { (a, z) } else { (z, a) };
                    let y = left.y + left.h / 2.0;
                    Some(LinkLine {
                        x1: left.x + left.w,
                        y1: y,
                        x2: right.x,
                        y2: y,
                        label: short(l),
                        busy,
                        busiest,
                        within: false,
                    })
                }
            }
        })
        .collect();
    let n = t.pools.len().max(1) as f64;
    Drawing {
        width: PAD * 2.0 + n * BOX_W + (n - 1.0) * BOX_GAP,
        height: box_h + PAD * 2.0,
        pools,
        links,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use disagg_engine::disagg::explain::explain;
    use disagg_engine::disagg::{Deployment, PoolConfig, Setup};
    use disagg_engine::{Catalogue, Parallelism, WeightFormat, Workload};

    fn pd() -> Topology {
        let c = Catalogue::builtin();
        let m = c.model("llama-3.3-70b").unwrap();
        let s = Setup::new(
            &m.ir,
            Workload::new(2048, 512),
            WeightFormat::new(m.default_weight_dtype),
        );
        let pool = |id: &str, tp: u32| PoolConfig {
            chip: c.chip(id).unwrap(),
            parallelism: Parallelism {
                tp,
                pp: 1,
                dp: 1,
                ep: 1,
            },
        };
        let d = Deployment::PrefillDecode {
            prefill: pool("h100-sxm", 4),
            decode: pool("h200", 8),
            batch: 64,
        };
        explain(&s, &d).unwrap().topology
    }

    #[test]
    fn two_pools_side_by_side_joined_by_their_link() {
        let t = pd();
        let d = layout(&t);
        assert_eq!(d.pools.len(), 2);
        assert_eq!((d.pools[0].chips.len(), d.pools[1].chips.len()), (4, 8));
        assert!(d.pools[0].x + d.pools[0].w < d.pools[1].x);
        // Two fabrics and the link between, which runs from one box's edge to the other's.
        assert_eq!(d.links.len(), 3);
        let between = d.links.iter().find(|l| !l.within).unwrap();
        assert_eq!(between.x1, d.pools[0].x + d.pools[0].w);
        assert_eq!(between.x2, d.pools[1].x);
        // Exactly one link is the busiest, the one the engine names.
        assert_eq!(d.links.iter().filter(|l| l.busiest).count(), 1);
        let rows = rows(&t);
        assert_eq!(rows.iter().filter(|r| r.busiest).count(), 1);
        assert!(rows.iter().any(|r| r.ends == "prefill pool to decode pool"));
        // Everything inside the drawing.
        for b in &d.pools {
            assert!(b.x + b.w <= d.width && b.y + b.h <= d.height);
            for (x, y) in &b.chips {
                assert!(*x + b.chip_size <= b.x + b.w && *y + b.chip_size <= b.y + b.h);
            }
        }
    }

    #[test]
    fn a_large_pool_draws_some_chips_and_counts_the_rest() {
        let mut t = pd();
        t.pools[1].chips = 512;
        let d = layout(&t);
        assert_eq!(d.pools[1].chips.len(), (ROW * ROWS) as usize);
        assert_eq!(
            d.pools[1].more.as_deref(),
            Some(format!("+{} chips not drawn", 512 - ROW * ROWS).as_str())
        );
        assert!(d.width.is_finite() && d.height.is_finite());
    }
}
