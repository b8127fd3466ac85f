//! The link between pools: a catalogued one (`catalogue/links`: Thunderbolt, Ethernet,
//! RDMA) by its id, link key `link`; none means the chips' own links.

use super::Scenario;
use disagg_engine::catalogue::Links;

impl Scenario {
    /// Sets the link from its id (`tb5`, `10gbe`, ...); empty or `chips` clears it.
    pub(super) fn set_link(&mut self, value: &str) -> Result<(), String> {
        self.link = match value {
            "" | "chips" => None,
            id => Some(
                Links::builtin()
                    .get(id)
                    .map_err(|_| {
                        let ids: Vec<&str> = Links::builtin()
                            .links
                            .iter()
                            .map(|l| l.id.as_str())
                            .collect();
                        format!("not a catalogued link ({}, or chips)", ids.join(" "))
                    })?
                    .id
                    .clone(),
            ),
        };
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::scenario::Scenario;
    use disagg_engine::Catalogue;

    #[test]
    fn a_link_travels_in_the_query_and_an_unknown_one_is_refused() {
        let cat = Catalogue::builtin();
        let mut s = Scenario::default();
        s.apply("link", "TB5-RDMA", cat).unwrap();
        assert_eq!(s.link.as_deref(), Some("tb5-rdma"));
        assert!(s.to_query().contains("link=tb5-rdma"));
        let (back, notices) = Scenario::from_query(&s.to_query(), cat);
        assert_eq!(back, s);
        assert!(notices.is_empty(), "{notices:?}");
        let why = s.apply("link", "tb9", cat).unwrap_err();
        assert!(why.contains("tb5") && why.contains("10gbe"), "{why}");
        assert_eq!(
            s.link.as_deref(),
            Some("tb5-rdma"),
            "a refusal keeps the link"
        );
        s.apply("link", "chips", cat).unwrap();
        assert_eq!(s.link, None);
        assert!(!s.to_query().contains("link="));
    }
}
