//! The chart in words, for readers who cannot see it: what runs across and up, how many
//! points of each kind are drawn, what the colours mean, and the verdict, measure by
//! measure. The canvas points its `aria-describedby` at this text.

use super::{ChartModel, Scale};
use crate::format::count;
use crate::scenario::ColourBy;
use disagg_engine::sweep::{Class, SweepResult};

pub fn describe(model: &ChartModel, result: &SweepResult) -> String {
    let scale = |s: Scale| if s == Scale::Log { " (log scale)" } else { "" };
    let mut parts = vec![format!(
        "Scatter of {} deployments: {} across{}, {} up{}.",
        count(model.points.len() as u64),
        model.x_label,
        scale(model.x.scale),
        model.y_label,
        scale(model.y.scale)
    )];
    let kinds: Vec<String> = [Class::Heterogeneous, Class::Homogeneous, Class::Baseline]
        .into_iter()
        .map(|c| (c, model.points.iter().filter(|p| p.class == c).count()))
        .filter(|(_, n)| *n > 0)
        .map(|(c, n)| format!("{} {}", count(n as u64), c.name()))
        .collect();
    if !kinds.is_empty() {
        parts.push(format!("Drawn: {}.", kinds.join(", ")));
    }
    parts.push(match model.colour_by {
        ColourBy::Price => "Colour shows output $/Mtok, blue cheap to orange dear; the tables give each price in numbers.".to_string(),
        ColourBy::Chip => format!(
            "Colour shows the chip: {}.",
            model
                .chips
                .iter()
                .map(|c| c.name.as_str())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    });
    let missing = model.points.iter().filter(|p| !p.meets_slo).count();
    if missing > 0 {
        parts.push(format!(
            "{} drawn grey miss the latency limits.",
            count(missing as u64)
        ));
    }
    if !model.pins.is_empty() {
        let names: Vec<String> = model.pins.iter().map(|p| p.legend()).collect();
        parts.push(format!(
            "Dashed lines: the frontiers of the pinned scenarios ({}).",
            names.join("; ")
        ));
    }
    if let Some(m) = &model.measured {
        parts.push(format!(
            "A cross marks the published measurement of the deployment shown (rows {}): {} tok/s per user and {} output tok/s per chip.",
            m.rows,
            crate::format::sig3(m.x),
            crate::format::sig3(m.y)
        ));
    }
    parts.extend(result.callouts.iter().map(|c| c.headline.clone()));
    parts.join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::explore::explore;
    use crate::scenario::Scenario;
    use disagg_engine::Catalogue;

    #[test]
    fn the_description_counts_what_is_drawn_and_states_the_verdict() {
        let s = Scenario::default();
        let r = explore(&s, Catalogue::builtin()).unwrap();
        let m = ChartModel::new(&r, &s, true, Catalogue::builtin());
        let text = describe(&m, &r);
        assert!(
            text.contains(&format!("Scatter of {} deployments", m.points.len())),
            "{text}"
        );
        for c in &r.callouts {
            assert!(text.contains(&c.headline), "{text}");
        }
        assert!(
            text.contains("$/Mtok") && !text.contains("miss the latency"),
            "{text}"
        );
        let chips = Scenario {
            colour_by: ColourBy::Chip,
            ttft_ms: Some(300.0),
            ..s
        };
        let r = explore(&chips, Catalogue::builtin()).unwrap();
        let m = ChartModel::new(&r, &chips, true, Catalogue::builtin());
        let text = describe(&m, &r);
        assert!(
            text.contains("Colour shows the chip: ") && text.contains("miss the latency limits"),
            "{text}"
        );
    }
}
