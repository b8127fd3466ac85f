//! The documents' pages as files of the site: each a whole HTML document under its own
//! Content-Security-Policy, with the stylesheet and icon it needs beside it (Trunk
//! renames the explorer's own with a hash the pages cannot know).

use crate::render::Rendered;
use crate::{escape, Doc, DOCS};

/// The pages' stylesheet.
pub const STYLESHEET: &str = include_str!("docs.css");
/// The explorer's icon, copied beside the pages.
const ICON: &[u8] = include_bytes!("../../../assets/favicon.svg");

/// Nothing but the page itself, its stylesheet and its icon: no script at all, nothing
/// from another origin.
pub const POLICY: &str = "default-src 'none'; style-src 'self'; img-src 'self'; \
                          base-uri 'none'; form-action 'none'";

/// A file of the site's `docs/` folder.
pub struct SiteFile {
    /// Its name in the folder.
    pub name: String,
    pub bytes: Vec<u8>,
}

/// The stylesheet's name carries a hash of its content, so a cached old one is never
/// used with new pages.
pub fn stylesheet_name() -> String {
    // FNV-1a, 64 bits: enough to tell versions of one small file apart.
    let hash = STYLESHEET.bytes().fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    });
    format!("docs-{hash:016x}.css")
}

/// Every file of the `docs/` folder: the two pages, their stylesheet and icon.
pub fn site() -> Vec<SiteFile> {
    let css = stylesheet_name();
    let mut files: Vec<SiteFile> = DOCS
        .iter()
        .map(|doc| SiteFile {
            name: doc.page.to_string(),
            bytes: page_html(doc, &doc.render(), &css).into_bytes(),
        })
        .collect();
    files.push(SiteFile {
        name: css,
        bytes: STYLESHEET.as_bytes().to_vec(),
    });
    files.push(SiteFile {
        name: "favicon.svg".into(),
        bytes: ICON.to_vec(),
    });
    files
}

/// One document's page.
pub fn page_html(doc: &Doc, text: &Rendered, stylesheet: &str) -> String {
    let nav: String = DOCS
        .iter()
        .map(|d| {
            let current = if d.page == doc.page {
                " aria-current=\"page\""
            } else {
                ""
            };
            format!(
                "<li><a href=\"{}\"{current}>{}</a></li>",
                escape(d.page),
                escape(d.label)
            )
        })
        .collect();
    format!(
        r##"<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="{policy}">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{title} · Disagg Explorer</title>
<link rel="stylesheet" href="{stylesheet}">
<link rel="icon" href="favicon.svg" type="image/svg+xml">
</head>
<body>
<a class="skip-link" href="#doc-text">Skip to the text</a>
<header class="masthead">
<nav aria-label="Site"><ul>
<li><a href="../">Disagg Explorer</a></li>
{nav}
</ul></nav>
</header>
<main id="doc-text" tabindex="-1">
{head}<nav class="toc" aria-labelledby="doc-toc"><h2 id="doc-toc">Contents</h2>
{toc}
</nav>
{body}</main>
<footer class="footer">Rendered from <code>{source}</code> in the project's repository when the site was built. Each heading keeps the anchor it has on GitHub; a numbered section also answers to <code>#section-</code> and its number, dots as dashes (<code>#section-6-1</code>).</footer>
</body>
</html>
"##,
        policy = POLICY,
        title = escape(&text.title),
        stylesheet = escape(stylesheet),
        head = text.head_html,
        toc = text.toc_html(),
        body = text.body_html,
        source = escape(doc.source),
    )
}
