//! What survives a reload: the last scenario and the user's display preferences.
//!
//! The page reads its starting state from, in order, the link (a shared scenario
//! wins), the saved scenario, the defaults. Anything unreadable is dropped with a
//! notice; nothing stored can stop the page from drawing.

use crate::scenario::Scenario;
use disagg_engine::Catalogue;
use serde::{Deserialize, Serialize};

pub const SCENARIO_KEY: &str = "disagg-explorer/scenario/v1";
pub const PREFERENCES_KEY: &str = "disagg-explorer/preferences/v1";

/// A key-value store of text: the browser's localStorage, or a map in tests.
pub trait Store {
    fn read(&self, key: &str) -> Option<String>;
    fn write(&mut self, key: &str, value: &str);
    fn remove(&mut self, key: &str);
}

impl Store for std::collections::HashMap<String, String> {
    fn read(&self, key: &str) -> Option<String> {
        self.get(key).cloned()
    }
    fn write(&mut self, key: &str, value: &str) {
        self.insert(key.to_string(), value.to_string());
    }
    fn remove(&mut self, key: &str) {
        std::collections::HashMap::remove(self, key);
    }
}

/// How the user likes the page, apart from the scenario.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Preferences {
    /// Draw every pairing's frontier points, not only the overall frontiers' lines.
    pub show_cloud: bool,
    /// Chip picker limited to one vendor; empty shows all.
    pub vendor_filter: String,
}

impl Default for Preferences {
    fn default() -> Preferences {
        Preferences {
            show_cloud: true,
            vendor_filter: String::new(),
        }
    }
}

/// Where the starting scenario came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Origin {
    Link,
    Saved,
    Defaults,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Start {
    pub scenario: Scenario,
    pub preferences: Preferences,
    pub origin: Origin,
    pub notices: Vec<String>,
    /// The point the link selects; checked against the sweep once it has run.
    pub point: Option<usize>,
}

/// The page's starting state from the link's query and the store; damaged saved
/// state is removed so the next load starts clean.
pub fn start(query: &str, store: &mut dyn Store, catalogue: &Catalogue) -> Start {
    let mut notices = Vec::new();
    let preferences = match store.read(PREFERENCES_KEY) {
        None => Preferences::default(),
        Some(text) => match serde_json::from_str::<Preferences>(&text) {
            Ok(p) => p,
            Err(_) => {
                store.remove(PREFERENCES_KEY);
                notices.push("saved preferences were unreadable and have been reset".into());
                Preferences::default()
            }
        },
    };
    let query = query.trim_start_matches('?');
    let point = crate::scenario::selected_point(query).unwrap_or_else(|why| {
        notices.push(format!("link: {why}"));
        None
    });
    let (scenario, origin) = if !query.is_empty() {
        let (s, link_notices) = Scenario::from_query(query, catalogue);
        notices.extend(link_notices.into_iter().map(|n| format!("link: {n}")));
        (s, Origin::Link)
    } else if let Some(saved) = store.read(SCENARIO_KEY) {
        let (s, saved_notices) = Scenario::from_query(&saved, catalogue);
        if !saved_notices.is_empty() {
            store.remove(SCENARIO_KEY);
            notices.extend(
                saved_notices
                    .into_iter()
                    .map(|n| format!("saved scenario: {n}")),
            );
        }
        (s, Origin::Saved)
    } else {
        (Scenario::default(), Origin::Defaults)
    };
    Start {
        scenario,
        preferences,
        origin,
        notices,
        point,
    }
}

pub fn save(store: &mut dyn Store, scenario: &Scenario, preferences: &Preferences) {
    store.write(SCENARIO_KEY, &scenario.to_query());
    if let Ok(text) = serde_json::to_string(preferences) {
        store.write(PREFERENCES_KEY, &text);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use disagg_engine::disagg::Axis;
    use std::collections::HashMap;

    fn cat() -> &'static Catalogue {
        Catalogue::builtin()
    }

    #[test]
    fn saved_state_survives_a_reload() {
        let mut store = HashMap::new();
        let s = Scenario {
            axis: Axis::Speculative,
            isl: 1000,
            ..Scenario::default()
        };
        let p = Preferences {
            show_cloud: false,
            vendor_filter: "AMD".into(),
        };
        save(&mut store, &s, &p);
        let back = start("", &mut store, cat());
        assert_eq!(back.scenario, s);
        assert_eq!(back.preferences, p);
        assert_eq!(back.origin, Origin::Saved);
        assert!(back.notices.is_empty());
    }

    #[test]
    fn the_users_chips_survive_a_reload_without_a_query() {
        let mut store = HashMap::new();
        let (s, notices) = Scenario::from_query(
            "v=1&chip.my-h100.from=h100-sxm&chip.my-h100.price=1.1&chip.npu.from=template\
             &chip.npu.bf16_tflops=300&chip.npu.memory=48&chip.npu.memory_bandwidth=1.5\
             &chips=h200,my-h100,npu",
            cat(),
        );
        assert!(notices.is_empty(), "{notices:?}");
        assert_eq!(s.user_chips.len(), 2);
        save(&mut store, &s, &Preferences::default());
        let back = start("", &mut store, cat());
        assert_eq!(back.origin, Origin::Saved);
        assert!(back.notices.is_empty(), "{:?}", back.notices);
        assert_eq!(back.scenario, s);
    }

    #[test]
    fn a_link_wins_over_saved_state() {
        let mut store = HashMap::new();
        save(&mut store, &Scenario::default(), &Preferences::default());
        let back = start("?v=1&isl=77", &mut store, cat());
        assert_eq!(back.scenario.isl, 77);
        assert_eq!(back.origin, Origin::Link);
    }

    #[test]
    fn corrupted_storage_is_ignored_with_a_notice_and_cleared() {
        let mut store = HashMap::new();
        store.write(SCENARIO_KEY, "\u{1}garbage%%%&model=nope");
        store.write(PREFERENCES_KEY, "{not json");
        let back = start("", &mut store, cat());
        assert_eq!(back.preferences, Preferences::default());
        assert!(back.notices.iter().any(|n| n.contains("preferences")));
        assert!(back.notices.iter().any(|n| n.starts_with("saved scenario")));
        assert!(store.read(SCENARIO_KEY).is_none());
        assert!(store.read(PREFERENCES_KEY).is_none());
        // A clean second load.
        assert!(start("", &mut store, cat()).notices.is_empty());
    }
}
