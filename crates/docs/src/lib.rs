//! The model's equations (`audit/MODEL.md`) and the audit (`audit/AUDIT.md`) as pages of
//! the explorer's static site, rendered from the repository's own Markdown when the site
//! is built (Trunk runs the `disagg-docs` binary after each build; see `Trunk.toml`).
//!
//! Every heading gets GitHub's id, so a fragment works the same on GitHub and on the
//! site, and a numbered heading ("6.1 The round") also `section-6-1`, the stable id the
//! explorer's explanations link to. Links between the two documents lead to their pages;
//! a link to any other file of the repository is shown as text.

#![forbid(unsafe_code)]
#![deny(unused_must_use)]
#![warn(clippy::dbg_macro, clippy::todo)]

pub mod anchor;
pub mod links;
mod page;
pub mod render;

pub use page::{page_html, site, SiteFile, STYLESHEET};

/// One document of the site.
pub struct Doc {
    /// Its path in the repository.
    pub source: &'static str,
    /// Its page, in the site's `docs/` folder.
    pub page: &'static str,
    /// What the pages' navigation calls it.
    pub label: &'static str,
    pub markdown: &'static str,
}

/// The documents, read from the repository when this crate is compiled (a change to
/// either rebuilds it).
pub static DOCS: [Doc; 2] = [
    Doc {
        source: "audit/MODEL.md",
        page: "model.html",
        label: "The performance model",
        markdown: include_str!("../../../audit/MODEL.md"),
    },
    Doc {
        source: "audit/AUDIT.md",
        page: "audit.html",
        label: "The audit",
        markdown: include_str!("../../../audit/AUDIT.md"),
    },
];

/// The folder of the site the pages go in; the explorer's footer links into it.
pub const FOLDER: &str = "docs";

impl Doc {
    /// `MODEL.md`, as a link beside it names it.
    pub fn file_name(&self) -> &'static str {
        self.source.rsplit('/').next().unwrap_or(self.source)
    }

    /// The address of this page (at `fragment`) as written on the page `from`.
    pub fn href(&self, fragment: Option<&str>, from: &Doc) -> String {
        match fragment.filter(|f| !f.is_empty()) {
            Some(f) if self.page == from.page => format!("#{f}"),
            Some(f) => format!("{}#{f}", self.page),
            None => self.page.to_string(),
        }
    }

    pub fn render(&self) -> render::Rendered {
        render::render(self, self.markdown)
    }
}

/// Text made safe for HTML, in element content and in quoted attributes.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests;
