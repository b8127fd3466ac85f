//! The user's own chips (`user_chips.rs`) as the link carries them: clones and template
//! chips in any order, refused by name and bounded.

use super::tests::cat;
use super::*;
use disagg_engine::limits::MAX_USER_CHIPS;

/// A template chip with its required numbers, in a link.
const NPU: &str = "chip.npu-1.from=template&chip.npu-1.bf16_tflops=400&chip.npu-1.memory=64&chip.npu-1.memory_bandwidth=2";

#[test]
fn clones_and_template_chips_travel_in_the_link_in_any_order() {
    let mut s = Scenario::default();
    s.apply("chip.my-h100.from", "h100-sxm", cat()).unwrap();
    s.apply("chip.my-h100.price", "1.4", cat()).unwrap();
    s.apply("chip.my-h100.memory_bandwidth", "4.0", cat())
        .unwrap();
    for pair in NPU.split('&') {
        let (k, v) = pair.split_once('=').unwrap();
        s.apply(k, v, cat()).unwrap();
    }
    let chips = s.chips_toggled("my-h100", true).unwrap();
    s.apply("chips", &chips, cat()).unwrap();
    let chips = s.chips_toggled("npu-1", true).unwrap();
    s.apply("chips", &chips, cat()).unwrap();
    assert!(s
        .chips
        .ends_with(&["my-h100".to_string(), "npu-1".to_string()]));
    let q = s.to_query();
    assert!(q.contains("chip.my-h100.from=h100-sxm"), "{q}");
    assert!(q.contains("chip.npu-1.from=template"), "{q}");
    let (back, notices) = Scenario::from_query(&q, cat());
    assert!(notices.is_empty(), "{notices:?}");
    assert_eq!(back, s);
    // The definitions may come last: the chips that name them are still read.
    let mut pairs: Vec<&str> = q.split('&').collect();
    pairs.sort_by_key(|p| p.contains(".from="));
    let (late, notices) = Scenario::from_query(&pairs.join("&"), cat());
    assert!(notices.is_empty(), "{notices:?}");
    assert_eq!(late, s);
    // The sweep sees them as chips of the catalogue, with the user's numbers.
    let effective = crate::bundle::effective(&s, cat()).unwrap();
    let mine = effective.chip("my-h100").unwrap();
    assert_eq!(mine.price.unwrap().value(), 1.4);
    assert_eq!(mine.fast.bandwidth.value(), 4.0e12);
    assert_eq!(mine.bf16, cat().chip("h100-sxm").unwrap().bf16);
    assert_eq!(effective.chip("npu-1").unwrap().fast.capacity.value(), 64e9);
}

#[test]
fn user_chips_are_refused_by_name_and_bounded() {
    let mut s = Scenario::default();
    let why = s.apply("chip.h200.from", "h100-sxm", cat()).unwrap_err();
    assert!(why.contains("h200 is taken"), "{why}");
    let why = s.apply("chip.x.from", "warp-drive", cat()).unwrap_err();
    assert!(why.contains("warp-drive"), "{why}");
    let why = s.apply("chip.Bad_Id.from", "template", cat()).unwrap_err();
    assert!(why.contains("letters, digits and dashes"), "{why}");
    // A number for a chip nobody defined is refused; for a defined one, by range.
    assert!(s.apply("chip.ghost.price", "1", cat()).is_err());
    s.apply("chip.npu.from", "template", cat()).unwrap();
    let why = s.apply("chip.npu.memory", "-5", cat()).unwrap_err();
    assert!(why.contains("memory of npu"), "{why}");
    // A template chip without its required numbers cannot be picked, and says why.
    let warnings = s.apply("chips", "h100-sxm,npu", cat()).unwrap();
    assert_eq!(s.chips, vec!["h100-sxm".to_string()]);
    assert!(
        warnings.iter().any(|w| w.contains("bf16_tflops (TFLOPS)")),
        "{warnings:?}"
    );
    // Removing a chip takes its numbers and its place in the pool with it.
    s.apply("chip.npu.bf16_tflops", "100", cat()).unwrap();
    s.apply("chip.npu.from", "", cat()).unwrap();
    assert!(s.user_chips.is_empty() && s.chip_edits.is_empty());
    // At most MAX_USER_CHIPS; a hostile link gets notices, not more chips.
    let many: Vec<String> = (0..MAX_USER_CHIPS + 3)
        .map(|i| format!("chip.c{i}.from=h100-sxm"))
        .collect();
    let (big, notices) = Scenario::from_query(&format!("v=1&{}", many.join("&")), cat());
    assert_eq!(big.user_chips.len(), MAX_USER_CHIPS);
    assert_eq!(notices.len(), 3, "{notices:?}");
}

#[test]
fn a_picked_template_chip_keeps_its_required_numbers() {
    let (mut s, notices) = Scenario::from_query(&format!("v=1&{NPU}&chips=npu-1"), cat());
    assert!(notices.is_empty(), "{notices:?}");
    assert_eq!(s.chips, vec!["npu-1".to_string()]);
    let why = s.apply("chip.npu-1.memory", "", cat()).unwrap_err();
    assert!(why.contains("memory is required"), "{why}");
    // The only chip of the pool is not removed from under it.
    assert!(s.apply("chip.npu-1.from", "", cat()).is_err());
}
