//! Where a link written in a document leads on the site: the other document's page,
//! a place on the same page, an outside address, or nowhere (a file of the repository
//! that is not a page, shown as text rather than as a broken link).

use crate::{Doc, DOCS};

#[derive(Debug, PartialEq, Eq)]
pub enum Target {
    /// An http(s) address, kept as written.
    External(String),
    /// A page of the site, relative to the documents' folder (`model.html#section-6-1`),
    /// or a fragment of the page itself (`#calibration`).
    Site(String),
    /// Not a page of the site: shown as plain text.
    NotAPage,
}

/// The document a repository path names (`MODEL.md` beside it, `audit/MODEL.md` from the
/// root, `./`, `/` or `../` in front), if it is one of the documents.
pub fn document_named(path: &str) -> Option<&'static Doc> {
    let mut p = path.trim();
    loop {
        let before = p;
        p = p.trim_start_matches("./").trim_start_matches("../");
        p = p.trim_start_matches('/');
        if p == before {
            break;
        }
    }
    let p = p.strip_prefix("audit/").unwrap_or(p);
    DOCS.iter().find(|d| d.file_name() == p)
}

/// Where a Markdown link's destination leads from the document `from`.
pub fn resolve(dest: &str, from: &Doc) -> Target {
    let dest = dest.trim();
    let lower = dest.to_ascii_lowercase();
    if lower.starts_with("https://") || lower.starts_with("http://") {
        return Target::External(dest.to_string());
    }
    if let Some(fragment) = dest.strip_prefix('#') {
        return Target::Site(format!("#{fragment}"));
    }
    // Any other scheme (javascript:, data:, mailto:, …) is not followed.
    if dest.contains(':') {
        return Target::NotAPage;
    }
    let (path, fragment) = match dest.split_once('#') {
        Some((p, f)) => (p, Some(f)),
        None => (dest, None),
    };
    match document_named(path) {
        Some(doc) => Target::Site(doc.href(fragment, from)),
        None => Target::NotAPage,
    }
}

/// A code span that names the other document (`MODEL.md`, `audit/AUDIT.md`) becomes a
/// link to its page; when the text after it names a section ("`MODEL.md` section 6.1",
/// "sections 5 and 6.1"), the link goes to the first section named.
pub fn code_span_link(code: &str, following_text: &str, from: &Doc) -> Option<String> {
    let (path, fragment) = match code.trim().split_once('#') {
        Some((p, f)) => (p, Some(f.to_string())),
        None => (code.trim(), None),
    };
    let doc = document_named(path)?;
    if doc.page == from.page && fragment.is_none() {
        return None;
    }
    let fragment = fragment.or_else(|| {
        let rest = following_text
            .strip_prefix(" sections ")
            .or_else(|| following_text.strip_prefix(" section "))?;
        let number: String = rest
            .chars()
            .take_while(|c| c.is_ascii_digit() || *c == '.')
            .collect();
        let number = number.trim_end_matches('.');
        crate::anchor::section_number(number).map(crate::anchor::section_id)
    });
    Some(doc.href(fragment.as_deref(), from))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn model() -> &'static Doc {
        &DOCS[0]
    }
    fn audit() -> &'static Doc {
        &DOCS[1]
    }

    #[test]
    fn links_between_the_documents_go_to_their_pages() {
        for dest in [
            "MODEL.md",
            "./MODEL.md",
            "audit/MODEL.md",
            "../audit/MODEL.md",
            "/audit/MODEL.md",
        ] {
            assert_eq!(
                resolve(dest, audit()),
                Target::Site("model.html".into()),
                "{dest}"
            );
        }
        assert_eq!(
            resolve("audit/MODEL.md#61-the-round-disaggroundrs", audit()),
            Target::Site("model.html#61-the-round-disaggroundrs".into())
        );
        assert_eq!(
            resolve("AUDIT.md#calibration", model()),
            Target::Site("audit.html#calibration".into())
        );
        // On its own page, a link to a place in it stays a fragment.
        assert_eq!(
            resolve("MODEL.md#section-3", model()),
            Target::Site("#section-3".into())
        );
        assert_eq!(
            resolve("#section-3", model()),
            Target::Site("#section-3".into())
        );
    }

    #[test]
    fn other_links() {
        assert_eq!(
            resolve("https://example.org/a?b=c", model()),
            Target::External("https://example.org/a?b=c".into())
        );
        for dest in [
            "../catalogue/README.md",
            "catalogue/README.md",
            "../crates/engine/src/disagg/round.rs",
            "javascript:alert(1)",
            "data:text/html,x",
            "mailto:someone@example.org",
            "MODEL.md.bak",
        ] {
            assert_eq!(resolve(dest, model()), Target::NotAPage, "{dest}");
        }
    }

    #[test]
    fn code_spans_naming_a_document() {
        assert_eq!(
            code_span_link("MODEL.md", " section 1)", audit()).as_deref(),
            Some("model.html#section-1")
        );
        assert_eq!(
            code_span_link("MODEL.md", " sections 5 and 6.1)", audit()).as_deref(),
            Some("model.html#section-5")
        );
        assert_eq!(
            code_span_link("MODEL.md", " section 6.1.", audit()).as_deref(),
            Some("model.html#section-6-1")
        );
        assert_eq!(
            code_span_link("audit/AUDIT.md", " gives the evidence", model()).as_deref(),
            Some("audit.html")
        );
        assert_eq!(code_span_link("audit/MODEL.md", "", model()), None);
        assert_eq!(code_span_link("catalogue/README.md", "", model()), None);
        assert_eq!(code_span_link("Setup::context_warning", "", model()), None);
        assert_eq!(
            code_span_link("MODEL.md", " section x", audit()).as_deref(),
            Some("model.html")
        );
    }
}
