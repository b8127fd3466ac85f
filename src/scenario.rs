//! The explorer's scenario: every control of the page, and its URL query form.
//!
//! The query is versioned (`v=1`). Reading never fails: a hand-edited or hostile query
//! yields the nearest valid scenario plus one notice per thing that was ignored or
//! clamped, so the page always has something to draw and can say what it changed.

use disagg_engine::disagg::{Axis, MAX_DRAFT_TOKENS};
use disagg_engine::sweep::MAX_SWEEP_CHIPS;
use disagg_engine::{Catalogue, DType};

pub const SCHEMA_VERSION: u32 = 1;
/// Longest prompt or output the page accepts from a link.
pub const MAX_LENGTH: u32 = 1_000_000;

/// What the chart's y axis shows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum YAxis {
    TokSPerChip,
    TokSPerUsdHour,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Scenario {
    pub model: String,
    pub isl: u32,
    pub osl: u32,
    pub weight_dtype: Option<DType>,
    pub kv_dtype: DType,
    pub axis: Axis,
    pub chips: Vec<String>,
    pub max_chips: u32,
    pub target_tok_s_user: Option<f64>,
    /// `None`: the model's MTP layers.
    pub draft_model: Option<String>,
    pub acceptance: f64,
    pub draft_tokens: u32,
    pub y_axis: YAxis,
}

impl Default for Scenario {
    fn default() -> Scenario {
        Scenario {
            model: "llama-3.3-70b".into(),
            isl: 8192,
            osl: 512,
            weight_dtype: None,
            kv_dtype: DType::Fp8,
            axis: Axis::PrefillDecode,
            chips: ["h100-sxm", "h200", "b200", "mi300x", "mi355x"]
                .map(String::from)
                .to_vec(),
            max_chips: 64,
            target_tok_s_user: None,
            draft_model: Some("llama-3.2-1b".into()),
            acceptance: 0.8,
            draft_tokens: 4,
            y_axis: YAxis::TokSPerChip,
        }
    }
}

/// Percent-encodes what a query value must not carry raw.
fn encode(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b',' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// Decodes `%XX` and `+`; malformed escapes are kept literally (and then fail lookup).
fn decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'+' => out.push(b' '),
            b'%' if i + 2 < bytes.len() => {
                let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok();
                match hex.and_then(|h| u8::from_str_radix(h, 16).ok()) {
                    Some(v) => {
                        out.push(v);
                        i += 2;
                    }
                    None => out.push(b'%'),
                }
            }
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

impl Scenario {
    /// The query string (without `?`) that reproduces this scenario.
    pub fn to_query(&self) -> String {
        let mut q = vec![
            format!("v={SCHEMA_VERSION}"),
            format!("model={}", encode(&self.model)),
            format!("isl={}", self.isl),
            format!("osl={}", self.osl),
            format!("kv={}", self.kv_dtype.name()),
            format!("axis={}", self.axis.id()),
            format!("chips={}", encode(&self.chips.join(","))),
            format!("budget={}", self.max_chips),
            format!(
                "draft={}",
                encode(self.draft_model.as_deref().unwrap_or("mtp"))
            ),
            format!("acc={}", self.acceptance),
            format!("k={}", self.draft_tokens),
            format!(
                "y={}",
                match self.y_axis {
                    YAxis::TokSPerChip => "chip",
                    YAxis::TokSPerUsdHour => "usd",
                }
            ),
        ];
        if let Some(d) = self.weight_dtype {
            q.push(format!("wd={}", d.name()));
        }
        if let Some(t) = self.target_tok_s_user {
            q.push(format!("target={t}"));
        }
        q.join("&")
    }

    /// Reads a query (with or without `?`) against the catalogue: the nearest valid
    /// scenario and the notices of what was ignored or changed.
    pub fn from_query(query: &str, catalogue: &Catalogue) -> (Scenario, Vec<String>) {
        let mut s = Scenario::default();
        let mut notices = Vec::new();
        let query = query.trim_start_matches('?');
        if query.is_empty() {
            return (s, notices);
        }
        let mut seen_version = false;
        for pair in query.split('&').filter(|p| !p.is_empty()) {
            let (key, raw) = pair.split_once('=').unwrap_or((pair, ""));
            let key = decode(key);
            let value = decode(raw);
            let shown: String = value.chars().take(40).collect();
            let mut bad = |what: &str| {
                notices.push(format!("ignored {key}={shown:?}: {what}"));
            };
            match key.as_str() {
                "v" => {
                    seen_version = true;
                    if value != SCHEMA_VERSION.to_string() {
                        bad("unknown link version; read as version 1");
                    }
                }
                "model" => match catalogue.model(&value) {
                    Ok(m) => s.model = m.id.clone(),
                    Err(_) => bad("not a catalogue model"),
                },
                "isl" | "osl" => match value.parse::<u64>() {
                    Ok(n) if (1..=MAX_LENGTH as u64).contains(&n) => {
                        if key == "isl" {
                            s.isl = n as u32
                        } else {
                            s.osl = n as u32
                        }
                    }
                    _ => bad(&format!(
                        "a length must be a whole number from 1 to {MAX_LENGTH}"
                    )),
                },
                "wd" | "kv" => match value.parse::<DType>() {
                    Ok(d) if key == "wd" => s.weight_dtype = Some(d),
                    Ok(d) => s.kv_dtype = d,
                    Err(_) => bad("not a dtype (bf16 fp16 fp8 int8 fp4 int4)"),
                },
                "axis" => match Axis::parse(&value) {
                    Ok(a) => s.axis = a,
                    Err(_) => bad("not an axis (agg pd af spec)"),
                },
                "chips" => {
                    let mut chips = Vec::new();
                    for id in value.split(',').map(str::trim).filter(|c| !c.is_empty()) {
                        match catalogue.chip(id) {
                            Ok(c) if !chips.contains(&c.id) => chips.push(c.id.clone()),
                            Ok(_) => {}
                            Err(_) => notices.push(format!(
                                "ignored chip {:?}: not in the catalogue",
                                id.chars().take(40).collect::<String>()
                            )),
                        }
                    }
                    if chips.is_empty() {
                        notices.push("no known chip in the link; kept the default chips".into());
                    } else {
                        s.chips = chips;
                    }
                }
                "budget" => match value.parse::<u64>() {
                    Ok(n) if (1..=MAX_SWEEP_CHIPS as u64).contains(&n) => s.max_chips = n as u32,
                    _ => bad(&format!("the chip budget runs from 1 to {MAX_SWEEP_CHIPS}")),
                },
                "target" => match value.parse::<f64>() {
                    Ok(t) if t.is_finite() && t > 0.0 && t <= 1e6 => s.target_tok_s_user = Some(t),
                    _ => bad("the target must be a positive tok/s/user"),
                },
                "draft" if value == "mtp" => s.draft_model = None,
                "draft" => match catalogue.model(&value) {
                    Ok(m) => s.draft_model = Some(m.id.clone()),
                    Err(_) => bad("not a catalogue model or mtp"),
                },
                "acc" => match value.parse::<f64>() {
                    Ok(a) if (0.0..=1.0).contains(&a) => s.acceptance = a,
                    _ => bad("acceptance must lie between 0 and 1"),
                },
                "k" => match value.parse::<u32>() {
                    Ok(k) if (1..=MAX_DRAFT_TOKENS).contains(&k) => s.draft_tokens = k,
                    _ => bad(&format!("drafted tokens run from 1 to {MAX_DRAFT_TOKENS}")),
                },
                "y" => match value.as_str() {
                    "chip" => s.y_axis = YAxis::TokSPerChip,
                    "usd" => s.y_axis = YAxis::TokSPerUsdHour,
                    _ => bad("y is chip or usd"),
                },
                _ => bad("unknown setting"),
            }
        }
        if !seen_version {
            notices.push("the link has no version; read as version 1".into());
        }
        (s, notices)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cat() -> &'static Catalogue {
        Catalogue::builtin()
    }

    #[test]
    fn every_default_id_is_in_the_catalogue() {
        let s = Scenario::default();
        assert!(cat().model(&s.model).is_ok());
        for c in &s.chips {
            assert!(cat().chip(c).is_ok(), "{c}");
        }
        assert!(cat().model(s.draft_model.as_deref().unwrap()).is_ok());
    }

    #[test]
    fn query_round_trips() {
        let s = Scenario {
            model: "deepseek-v3".into(),
            isl: 2048,
            osl: 1024,
            weight_dtype: Some(DType::Fp4),
            kv_dtype: DType::Bf16,
            axis: Axis::AttentionExpert,
            chips: vec!["gb200".into(), "mi355x".into()],
            max_chips: 128,
            target_tok_s_user: Some(37.5),
            draft_model: None,
            acceptance: 0.65,
            draft_tokens: 3,
            y_axis: YAxis::TokSPerUsdHour,
        };
        let (back, notices) = Scenario::from_query(&s.to_query(), cat());
        assert_eq!(back, s);
        assert!(notices.is_empty(), "{notices:?}");
    }

    #[test]
    fn hostile_queries_give_the_nearest_valid_scenario_and_say_why() {
        let (s, notices) = Scenario::from_query(
            "?v=1&model=gpt-9&isl=-5&osl=99999999999999999999&chips=h200,warp-drive,h200\
             &budget=0&acc=NaN&k=400&target=inf&axis=%3Cscript%3E&zzz=1&%E0%A4=%",
            cat(),
        );
        let d = Scenario::default();
        assert_eq!(s.model, d.model);
        assert_eq!((s.isl, s.osl), (d.isl, d.osl));
        assert_eq!(s.chips, vec!["h200".to_string()]);
        assert_eq!(s.max_chips, d.max_chips);
        assert_eq!(s.acceptance, d.acceptance);
        assert_eq!(s.draft_tokens, d.draft_tokens);
        assert_eq!(s.target_tok_s_user, None);
        assert_eq!(s.axis, d.axis);
        for needle in [
            "model",
            "isl",
            "osl",
            "warp-drive",
            "budget",
            "acc",
            "k=",
            "target",
            "axis",
            "zzz",
        ] {
            assert!(
                notices.iter().any(|n| n.contains(needle)),
                "no notice mentions {needle}: {notices:#?}"
            );
        }
    }

    #[test]
    fn garbage_never_panics() {
        for q in [
            "",
            "?",
            "&&&",
            "=",
            "v",
            "%",
            "%%%",
            "chips=",
            "chips=,,,",
            "\u{0}=\u{0}",
        ] {
            let (s, _) = Scenario::from_query(q, cat());
            assert!(!s.chips.is_empty());
        }
    }
}
