//! Links between machines that are not one scale-up domain (desk clusters, racks joined
//! by Ethernet): `catalogue/links/*.toml`, each a bandwidth per direction and, where
//! published, a latency, with their provenance. A setup names one with
//! [`LinkPreset::link`]; `Setup::inter_pool_link` keeps the numeric override.

use super::provenance::{resolve, Dimension, Provenance, RawValue};
use super::{embedded, Link};
use crate::catalogue::chip::DEFAULT_SCALE_OUT_LATENCY;
use crate::error::{EngineError, Result};
use crate::units::{BytesPerSecond, Seconds};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;
use std::sync::OnceLock;

/// One catalogued link: what a cable or a NIC carries each way.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LinkPreset {
    pub id: String,
    pub name: String,
    /// `ethernet`, `thunderbolt` or `rdma`.
    pub kind: String,
    pub notes: Option<String>,
    pub bandwidth: BytesPerSecond,
    /// `None` where nothing is published: the default scale-out latency applies.
    pub latency: Option<Seconds>,
    /// Each number's provenance by field (`bandwidth`, `latency`).
    pub provenance: BTreeMap<String, Provenance>,
}

impl LinkPreset {
    /// The link as the engine costs it.
    pub fn link(&self) -> Link {
        Link {
            bandwidth: self.bandwidth,
            latency: self.latency.unwrap_or(DEFAULT_SCALE_OUT_LATENCY),
        }
    }

    /// Bandwidth per direction in gigabits per second, as the files and flags state it.
    pub fn gbps(&self) -> f64 {
        self.bandwidth.0 * 8.0 / 1e9
    }
}

/// The catalogued links, and the files left out with why.
#[derive(Clone, Debug, Default)]
pub struct Links {
    pub links: Vec<LinkPreset>,
    pub problems: Vec<EngineError>,
}

impl Links {
    /// The links compiled into the engine, parsed once.
    pub fn builtin() -> &'static Links {
        static LINKS: OnceLock<Links> = OnceLock::new();
        LINKS.get_or_init(|| Links::from_json_files(embedded::LINK_FILES))
    }

    /// Builds the table from `(file name, JSON text)` pairs; a bad file is left out
    /// and named in `problems`.
    pub fn from_json_files(files: &[(&str, &str)]) -> Links {
        let mut out = Links::default();
        for (file, json) in files {
            let parsed = serde_json::from_str::<LinkFile>(json)
                .map_err(|e| EngineError::Catalogue {
                    file: file.to_string(),
                    problem: e.to_string(),
                })
                .and_then(|f| f.into_preset(file));
            match parsed {
                Ok(l) if out.links.iter().any(|x| x.id == l.id) => {
                    out.problems.push(EngineError::Catalogue {
                        file: file.to_string(),
                        problem: format!("link id '{}' used twice", l.id),
                    })
                }
                Ok(l) => out.links.push(l),
                Err(e) => out.problems.push(e),
            }
        }
        out
    }

    /// The link `id` (any case, spaces trimmed).
    pub fn get(&self, id: &str) -> Result<&LinkPreset> {
        self.links
            .iter()
            .find(|l| l.id.eq_ignore_ascii_case(id.trim()))
            .ok_or_else(|| EngineError::UnknownId {
                kind: "link",
                id: id.to_string(),
                valid: self.links.iter().map(|l| l.id.clone()).collect(),
            })
    }
}

/// A link file as written.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct LinkFile {
    id: String,
    name: String,
    kind: String,
    #[serde(default)]
    notes: Option<String>,
    sources: BTreeMap<String, String>,
    bandwidth: RawValue,
    #[serde(default)]
    latency: Option<RawValue>,
}

const KINDS: [&str; 3] = ["ethernet", "thunderbolt", "rdma"];

impl LinkFile {
    fn into_preset(self, file: &str) -> Result<LinkPreset> {
        let problem = |p: String| EngineError::Catalogue {
            file: file.to_string(),
            problem: p,
        };
        if !KINDS.contains(&self.kind.as_str()) {
            return Err(problem(format!(
                "kind '{}' is not one of {}",
                self.kind,
                KINDS.join(", ")
            )));
        }
        let mut provenance = BTreeMap::new();
        let (bw, p) = resolve(
            file,
            "bandwidth",
            &self.bandwidth,
            Dimension::ByteRate,
            &self.sources,
        )?;
        if bw <= 0.0 {
            return Err(problem("bandwidth: must be above 0".into()));
        }
        provenance.insert("bandwidth".to_string(), p);
        let latency = match &self.latency {
            Some(raw) => {
                let (l, p) = resolve(file, "latency", raw, Dimension::Time, &self.sources)?;
                provenance.insert("latency".to_string(), p);
                Some(Seconds(l))
            }
            None => None,
        };
        Ok(LinkPreset {
            id: self.id,
            name: self.name,
            kind: self.kind,
            notes: self.notes,
            bandwidth: BytesPerSecond(bw),
            latency,
            provenance,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_link_file_loads() {
        let links = Links::builtin();
        assert!(links.problems.is_empty(), "{:?}", links.problems);
        assert!(links.links.len() >= 8, "{}", links.links.len());
    }

    #[test]
    fn a_link_is_its_file_in_si_units() {
        let tb5 = Links::builtin().get("TB5 ").unwrap();
        // 80 Gb/s each way is 10 GB/s; the TCP round trip is 300 us.
        assert_eq!(tb5.bandwidth.0, 10e9);
        assert_eq!(tb5.gbps(), 80.0);
        assert_eq!(tb5.link().latency.0, 300e-6);
        // No latency published: the default scale-out latency.
        let e = Links::builtin().get("10gbe").unwrap();
        assert_eq!(e.link().bandwidth.0, 1.25e9);
        assert_eq!(e.link().latency, DEFAULT_SCALE_OUT_LATENCY);
    }

    #[test]
    fn rdma_is_the_same_wire_with_a_shorter_path() {
        let l = Links::builtin();
        let (ip, rdma) = (l.get("tb5").unwrap(), l.get("tb5-rdma").unwrap());
        assert_eq!(ip.bandwidth, rdma.bandwidth);
        assert!(rdma.link().latency.0 < ip.link().latency.0 / 10.0);
    }

    #[test]
    fn an_unknown_link_names_the_valid_ones() {
        let e = Links::builtin().get("tb9").unwrap_err().to_string();
        assert!(
            e.contains("unknown link 'tb9'") && e.contains("tb5-rdma"),
            "{e}"
        );
    }

    #[test]
    fn a_bad_file_is_left_out_by_name() {
        let bad = r#"{"id":"x","name":"x","kind":"pigeon","sources":{"a":"b"},
            "bandwidth":{"value":1,"unit":"Gb/s","grade":"estimate","source":"a"}}"#;
        let unsourced = r#"{"id":"y","name":"y","kind":"ethernet","sources":{"a":"b"},
            "bandwidth":{"value":1,"unit":"Gb/s","grade":"estimate","source":"zz"}}"#;
        let l = Links::from_json_files(&[("x.toml", bad), ("y.toml", unsourced)]);
        assert!(l.links.is_empty());
        assert_eq!(l.problems.len(), 2);
        assert!(l.problems[0].to_string().contains("x.toml"));
        assert!(l.problems[1].to_string().contains("y.toml"));
    }
}
