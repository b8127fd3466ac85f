//! The chart's key, under the plot so it never covers data: what each shape and line
//! means and what the colours stand for (a price scale labelled along its length, or
//! one swatch per chip). Laid out here in CSS pixels, in rows that wrap to the width,
//! so the page knows the canvas height before drawing; [`super::draw`] paints it.

use super::{ChartModel, Line, Rgb, MISSES_SLO, UNPRICED};
use crate::scenario::ColourBy;
use disagg_engine::sweep::Class;

/// Height of a row of the key.
pub const ROW: f64 = 20.0;
/// Height of the price scale's row: the bar and its labels under it.
pub const PRICE_ROW: f64 = 40.0;
/// Width the key reserves per character of 12 px text (a little over a sans-serif
/// average, so that text never runs into the next entry).
pub const CHAR: f64 = 7.0;
/// Width of an entry's mark, and the gap after an entry.
pub const MARK: f64 = 24.0;
pub const GAP: f64 = 16.0;
/// Space around the key.
pub const PAD: f64 = 8.0;
/// Length of the price scale's bar, at most.
pub const BAR: f64 = 320.0;

#[derive(Clone, Debug, PartialEq)]
pub enum Mark {
    Shape(Class),
    Line(Line),
    /// A pinned scenario's dashed frontier: its colour and dash pattern.
    Dashed(Rgb, (f64, f64)),
    /// A published measurement's cross.
    Cross,
    Swatch(Rgb),
    /// A mixed point's two halves.
    Split(Rgb, Rgb),
    /// The $/Mtok colour scale over `lo..hi`, on its own row.
    PriceBar {
        lo: f64,
        hi: f64,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    pub mark: Mark,
    pub text: String,
}

impl Entry {
    fn new(mark: Mark, text: impl Into<String>) -> Entry {
        Entry {
            mark,
            text: text.into(),
        }
    }

    fn text_width(&self) -> f64 {
        self.text.chars().count() as f64 * CHAR
    }

    /// The entry's width at a key `width` wide.
    fn width(&self, width: f64) -> f64 {
        match self.mark {
            Mark::PriceBar { .. } => width,
            _ => MARK + self.text_width(),
        }
    }

    fn height(&self) -> f64 {
        match self.mark {
            Mark::PriceBar { .. } => PRICE_ROW,
            _ => ROW,
        }
    }
}

/// An entry and its top-left corner, relative to the key's.
#[derive(Clone, Debug, PartialEq)]
pub struct Placed {
    pub entry: Entry,
    pub x: f64,
    pub y: f64,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Key {
    pub entries: Vec<Placed>,
    /// The whole key's height, padding included.
    pub height: f64,
}

/// What the chart's key lists: the shapes and lines drawn, then the colours.
pub fn entries(model: &ChartModel) -> Vec<Entry> {
    let has = |c: Class| model.points.iter().any(|p| p.class == c);
    let mut out = Vec::new();
    for (class, text) in [
        (Class::Heterogeneous, "mixed split"),
        (Class::Homogeneous, "single-kind split"),
        (Class::Baseline, "aggregated baseline"),
    ] {
        if has(class) {
            out.push(Entry::new(Mark::Shape(class), text));
        }
    }
    for f in model.frontiers.iter().filter(|f| !f.points.is_empty()) {
        out.push(Entry::new(Mark::Line(f.line), f.line.name()));
    }
    for pin in &model.pins {
        out.push(Entry::new(
            Mark::Dashed(pin.colour(), pin.dash()),
            pin.legend(),
        ));
    }
    if let Some(m) = &model.measured {
        out.push(Entry::new(
            Mark::Cross,
            format!("measured (rows {})", m.rows),
        ));
    }
    let compliant = || model.points.iter().filter(|p| p.meets_slo);
    match model.colour_by {
        ColourBy::Price => {
            if let Some((lo, hi)) = model.colour {
                out.push(Entry::new(Mark::PriceBar { lo, hi }, "$/Mtok out"));
            }
            if compliant().any(|p| p.usd_per_mtok.is_none()) {
                out.push(Entry::new(Mark::Swatch(UNPRICED), "no price"));
            }
        }
        ColourBy::Chip => {
            for (i, chip) in model.chips.iter().enumerate() {
                if compliant().any(|p| p.chips.contains(&i)) {
                    out.push(Entry::new(Mark::Swatch(chip.colour), chip.name.clone()));
                }
            }
            if let (Some((a, b)), true) = (model.halves, has(Class::Heterogeneous)) {
                out.push(Entry::new(
                    Mark::Split((90, 96, 104), (200, 200, 200)),
                    format!("halves: {a} chip | {b} chip"),
                ));
            }
        }
    }
    if model.points.iter().any(|p| !p.meets_slo) {
        out.push(Entry::new(Mark::Swatch(MISSES_SLO), model.misses));
    }
    out
}

/// Places `entries` in rows across a key `width` CSS pixels wide, wrapping before an
/// entry that would run past the edge (a lone entry wider than the key keeps its row).
pub fn layout(entries: Vec<Entry>, width: f64) -> Key {
    let inner = (width - 2.0 * PAD).max(MARK);
    let (mut x, mut y, mut row_h) = (0.0, 0.0, 0.0_f64);
    let mut placed = Vec::with_capacity(entries.len());
    for entry in entries {
        let w = entry.width(inner);
        if x > 0.0 && x + w > inner {
            x = 0.0;
            y += row_h;
            row_h = 0.0;
        }
        row_h = row_h.max(entry.height());
        placed.push(Placed {
            x: PAD + x,
            y: PAD + y,
            entry,
        });
        x += w + GAP;
    }
    let height = if placed.is_empty() {
        0.0
    } else {
        y + row_h + 2.0 * PAD
    };
    Key {
        entries: placed,
        height,
    }
}

/// The key of `model` at a canvas `width` CSS pixels wide.
pub fn key(model: &ChartModel, width: f64) -> Key {
    layout(entries(model), width)
}

/// Where the price bar starts after its title, and how long it is, in a key `width`
/// wide.
pub fn price_bar_span(title: &str, width: f64) -> (f64, f64) {
    let start = title.chars().count() as f64 * CHAR + 8.0;
    let length = (width - 2.0 * PAD - start - 2.0 * CHAR * 3.0).clamp(60.0, BAR);
    (start, length)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::chart::ChartModel;
    use crate::explore::explore;
    use crate::scenario::Scenario;
    use disagg_engine::Catalogue;

    fn model(s: &Scenario) -> ChartModel {
        let r = explore(s, Catalogue::builtin()).unwrap();
        ChartModel::new(&r, s, true, Catalogue::builtin())
    }

    /// The grey swatch names what its points miss: the SLO's limits, the rate to
    /// carry, or either.
    #[test]
    fn the_grey_swatch_names_what_its_points_miss() {
        use crate::chart::misses_label;
        let limits = Scenario {
            ttft_ms: Some(300.0),
            ..Scenario::default()
        };
        let rate = Scenario {
            rate: Some(50.0),
            ..Scenario::default()
        };
        let both = Scenario {
            rate: Some(50.0),
            ..limits.clone()
        };
        assert_eq!(misses_label(&limits), "misses the SLO");
        assert_eq!(misses_label(&rate), "cannot carry the rate");
        assert_eq!(misses_label(&both), "misses the SLO or the rate");
        // A rate no deployment of the default scenario carries greys every point, and
        // the legend says why.
        let flood = Scenario {
            rate: Some(1e6),
            ..Scenario::default()
        };
        let m = model(&flood);
        assert!(m.points.iter().all(|p| !p.meets_slo));
        assert!(entries(&m)
            .iter()
            .any(|e| e.text == "cannot carry the rate"));
    }

    #[test]
    fn entries_never_overlap_and_stay_inside_the_width() {
        let s = Scenario {
            colour_by: ColourBy::Chip,
            ttft_ms: Some(300.0),
            ..Scenario::default()
        };
        for width in [320.0, 390.0, 800.0, 1400.0] {
            for m in [model(&Scenario::default()), model(&s)] {
                let key = key(&m, width);
                let boxes: Vec<(f64, f64, f64, f64)> = key
                    .entries
                    .iter()
                    .map(|p| {
                        let inner = width - 2.0 * PAD;
                        (p.x, p.y, p.entry.width(inner), p.entry.height())
                    })
                    .collect();
                for (i, a) in boxes.iter().enumerate() {
                    assert!(
                        a.0 + a.2 <= width - PAD + 1e-9,
                        "{width}: {:?}",
                        key.entries[i]
                    );
                    assert!(a.1 + a.3 <= key.height);
                    for b in &boxes[i + 1..] {
                        let apart = a.0 + a.2 <= b.0
                            || b.0 + b.2 <= a.0
                            || a.1 + a.3 <= b.1
                            || b.1 + b.3 <= a.1;
                        assert!(apart, "{a:?} overlaps {b:?}");
                    }
                }
            }
        }
    }

    #[test]
    fn the_key_names_what_the_colours_mean() {
        let price = entries(&model(&Scenario::default()));
        assert!(price
            .iter()
            .any(|e| matches!(e.mark, Mark::PriceBar { .. })));
        assert!(!price.iter().any(|e| e.text == "misses the SLO"));
        let s = Scenario {
            colour_by: ColourBy::Chip,
            ttft_ms: Some(300.0),
            ..Scenario::default()
        };
        let m = model(&s);
        let chips = entries(&m);
        let names: Vec<&str> = chips
            .iter()
            .filter(|e| matches!(e.mark, Mark::Swatch(c) if c != MISSES_SLO))
            .map(|e| e.text.as_str())
            .collect();
        assert!(
            names.contains(&"NVIDIA H100 SXM") || names.iter().any(|n| n.contains("H100")),
            "{names:?}"
        );
        assert!(names.len() >= 2, "{names:?}");
        assert!(chips
            .iter()
            .any(|e| e.text == "halves: prefill chip | decode chip"));
        assert!(chips.iter().any(|e| e.text == "misses the SLO"));
        assert!(!chips
            .iter()
            .any(|e| matches!(e.mark, Mark::PriceBar { .. })));
    }

    #[test]
    fn a_narrow_key_wraps_into_more_rows() {
        let m = model(&Scenario {
            colour_by: ColourBy::Chip,
            ..Scenario::default()
        });
        assert!(key(&m, 390.0).height > key(&m, 1400.0).height);
        assert_eq!(layout(Vec::new(), 500.0).height, 0.0);
    }
}
