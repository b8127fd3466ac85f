//! Heading anchors: the id GitHub gives a heading, so a fragment works the same on
//! GitHub and on the site, and the stable `section-…` id of a numbered heading, which the
//! explorer's explanations link to.

use std::collections::HashMap;

/// GitHub's heading slug: the heading's text in lower case, keeping letters, digits,
/// `-` and `_`, each space made a `-`; everything else dropped.
pub fn github_slug(text: &str) -> String {
    text.trim()
        .chars()
        .flat_map(char::to_lowercase)
        .filter(|c| c.is_alphanumeric() || matches!(c, '-' | '_' | ' '))
        .map(|c| if c == ' ' { '-' } else { c })
        .collect()
}

/// Gives each heading of one document its slug; a repeated slug gets `-1`, `-2`, … as
/// GitHub numbers them.
#[derive(Default)]
pub struct Slugger {
    seen: HashMap<String, usize>,
}

impl Slugger {
    pub fn slug(&mut self, text: &str) -> String {
        let base = github_slug(text);
        let mut slug = base.clone();
        while self.seen.contains_key(&slug) {
            let n = self.seen.entry(base.clone()).or_insert(0);
            *n += 1;
            slug = format!("{base}-{n}");
        }
        self.seen.insert(slug.clone(), 0);
        slug
    }
}

/// The section number a heading starts with (`6.1` of "6.1 The round", `1` of
/// "1. Conventions"), if it starts with one.
pub fn section_number(heading: &str) -> Option<&str> {
    let first = heading.split_whitespace().next()?;
    let number = first.strip_suffix('.').unwrap_or(first);
    let well_formed = !number.is_empty()
        && number
            .split('.')
            .all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()));
    well_formed.then_some(number)
}

/// The stable id of a numbered section: `section-6-1` for "6.1".
pub fn section_id(number: &str) -> String {
    format!("section-{}", number.replace('.', "-"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn slugs_follow_github() {
        assert_eq!(
            github_slug("6.1 The round (`disagg/round.rs`)"),
            "61-the-round-disaggroundrs"
        );
        assert_eq!(
            github_slug("Sweep speed (`cargo bench -p disagg-engine --bench sweep`)"),
            "sweep-speed-cargo-bench--p-disagg-engine---bench-sweep"
        );
        assert_eq!(
            github_slug("Conventions (`MODEL.md` section 1)"),
            "conventions-modelmd-section-1"
        );
        assert_eq!(github_slug("snake_case & Ünïcode"), "snake_case--ünïcode");
    }

    #[test]
    fn repeated_headings_are_numbered() {
        let mut s = Slugger::default();
        assert_eq!(s.slug("Notes"), "notes");
        assert_eq!(s.slug("Notes"), "notes-1");
        assert_eq!(s.slug("notes!"), "notes-2");
        // A heading whose own slug is a taken numbered one moves on too.
        assert_eq!(s.slug("Notes 1"), "notes-1-1");
        assert_eq!(s.slug("Other"), "other");
    }

    #[test]
    fn numbered_headings() {
        assert_eq!(section_number("6.1 The round"), Some("6.1"));
        assert_eq!(section_number("1. Conventions (`units.rs`)"), Some("1"));
        assert_eq!(section_number("10.2.3 Deep"), Some("10.2.3"));
        for not in ["Calibration", "6..1 x", ".5 x", "6a x", "", "   "] {
            assert_eq!(section_number(not), None, "{not}");
        }
        assert_eq!(section_id("6.1"), "section-6-1");
        assert_eq!(section_id("9"), "section-9");
    }
}
