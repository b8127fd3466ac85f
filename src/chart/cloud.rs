//! What the chart reads of a sweep whatever its y axis, colours and filter: each
//! point's x, price, kind, SLO and chips (the chips found by name, once), already in
//! draw order; the chips' key and a mixed point's halves. A sweep's [`Cloud`] is built
//! once; [`ChartModel::of`](super::ChartModel::of) then only reads each point's y and
//! picks the points an axis shows, so that switching the y axis or the colours does
//! not find every point's chips again nor sort the cloud again.

use super::{chip_colour, ChipKey, PlotPoint};
use disagg_engine::disagg::Figures;
use disagg_engine::sweep::{Class, SweepPoint, SweepResult};
use disagg_engine::Catalogue;

/// A sweep's points as the chart places them before a y axis is chosen.
#[derive(Clone, Debug, PartialEq)]
pub struct Cloud {
    /// Every point of the sweep's cloud in draw order, `y` not yet read (NaN);
    /// [`ChartModel::of`](super::ChartModel::of) keeps those its axis can show.
    pub(super) points: Vec<PlotPoint>,
    /// Every chip of the scenario, in its order, with a colour of its own.
    pub(super) chips: Vec<ChipKey>,
    /// The pool roles a mixed point's halves stand for, when there is a mixed point.
    pub(super) halves: Option<(&'static str, &'static str)>,
}

impl Cloud {
    /// The cloud of `result`, swept over `chips` (the scenario's, in its order), named
    /// as `catalogue` names them.
    pub fn new(result: &SweepResult, chips: &[String], catalogue: &Catalogue) -> Cloud {
        let chips: Vec<ChipKey> = chips
            .iter()
            .enumerate()
            .map(|(i, id)| ChipKey {
                id: id.clone(),
                name: catalogue.chip(id).map_or(id.clone(), |c| c.name.clone()),
                colour: chip_colour(i),
            })
            .collect();
        let chip_index = |id: &str| {
            chips
                .iter()
                .position(|c| c.id.eq_ignore_ascii_case(id))
                .unwrap_or(0)
        };
        let mut points: Vec<PlotPoint> = result
            .cloud
            .iter()
            .enumerate()
            .map(|(i, p)| PlotPoint {
                x: p.figures.tok_s_user.value(),
                y: f64::NAN,
                usd_per_mtok: usd(&p.figures),
                class: p.class,
                meets_slo: p.meets_slo,
                cloud_index: i,
                chips: end_chips(p).map(chip_index),
            })
            .collect();
        // A stable sort: the points an axis keeps stay in this order.
        points.sort_by_key(|p| (p.meets_slo, layer(p.class)));
        let halves = result
            .cloud
            .iter()
            .find(|p| p.class == Class::Heterogeneous)
            .and_then(|p| {
                Some((
                    p.spec.pools.first()?.role.name(),
                    p.spec.pools.last()?.role.name(),
                ))
            });
        Cloud {
            points,
            chips,
            halves,
        }
    }
}

fn usd(f: &Figures) -> Option<f64> {
    f.ranked_usd_per_mtok_output()
        .map(|v| v.value())
        .filter(|v| v.is_finite() && *v > 0.0)
}

/// Draw order: the baseline under the splits, mixed deployments on top (and points
/// that miss the SLO under all those that meet it).
pub(super) fn layer(c: Class) -> u8 {
    match c {
        Class::Baseline => 0,
        Class::Homogeneous => 1,
        Class::Heterogeneous => 2,
    }
}

/// The chips of a point's first and last pool.
fn end_chips(p: &SweepPoint) -> [&str; 2] {
    let pools = &p.spec.pools;
    let chip = |i: Option<usize>| i.and_then(|i| pools.get(i)).map_or("", |p| p.chip.as_str());
    [chip(Some(0)), chip(pools.len().checked_sub(1))]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::ChartModel;
    use crate::explore::explore;
    use crate::scenario::{ColourBy, Scenario, YAxis};

    #[test]
    fn one_cloud_serves_every_axis_colour_and_filter_as_a_fresh_build_does() {
        let cat = Catalogue::builtin();
        let limits = Scenario {
            ttft_ms: Some(300.0),
            tpot_ms: Some(30.0),
            ..Scenario::default()
        };
        for swept in [Scenario::default(), limits] {
            let r = explore(&swept, cat).unwrap();
            let cloud = Cloud::new(&r, &swept.chips, cat);
            // Every point once, in draw order, its y left to the axis.
            assert_eq!(cloud.points.len(), r.cloud.len());
            let mut seen: Vec<usize> = cloud.points.iter().map(|p| p.cloud_index).collect();
            seen.sort_unstable();
            assert!(seen.iter().copied().eq(0..r.cloud.len()));
            assert!(cloud.points.iter().all(|p| p.y.is_nan()));
            assert!(cloud.points.windows(2).all(
                |w| (w[0].meets_slo, layer(w[0].class)) <= (w[1].meets_slo, layer(w[1].class))
            ));
            for y_axis in [YAxis::TokSPerChip, YAxis::TokSPerUsdHour] {
                for colour_by in [ColourBy::Price, ColourBy::Chip] {
                    for every in [true, false] {
                        let s = Scenario {
                            y_axis,
                            colour_by,
                            ..swept.clone()
                        };
                        let fresh = ChartModel::new(&r, &s, every, cat);
                        assert!(!fresh.points.is_empty());
                        assert_eq!(ChartModel::of(&cloud, &r, &s, every), fresh);
                    }
                }
            }
        }
    }
}
