//! The renderer on small inputs, and the real documents: every heading anchored, every
//! numbered section of MODEL.md with its `section-…` id, no link to a missing page.

use crate::render::render;
use crate::{page::POLICY, site, Doc, DOCS};
use std::collections::HashSet;

fn model() -> &'static Doc {
    &DOCS[0]
}

fn body(markdown: &str) -> String {
    let r = render(model(), markdown);
    format!("{}{}", r.head_html, r.body_html)
}

/// The values of every `attr="…"` in `html`.
fn attributes<'a>(html: &'a str, attr: &str) -> Vec<&'a str> {
    let open = format!(" {attr}=\"");
    html.match_indices(&open)
        .filter_map(|(i, _)| html[i + open.len()..].split('"').next())
        .collect()
}

#[test]
fn headings_get_github_ids_and_numbered_ones_section_ids() {
    let html = body(
        "# Title\n\n## 6.1 The round (`disagg/round.rs`)\n\n### Plain words\n\n## Plain words\n",
    );
    assert!(
        html.contains(
            "<h2 id=\"section-6-1\"><span id=\"61-the-round-disaggroundrs\"></span>6.1 The round (<code>disagg/round.rs</code>)</h2>"
        ),
        "{html}"
    );
    assert!(html.contains("<h3 id=\"plain-words\">"), "{html}");
    assert!(html.contains("<h2 id=\"plain-words-1\">"), "{html}");
    assert!(html.contains("<h1 id=\"title\">"), "{html}");
}

#[test]
fn the_table_of_contents_nests_level_three_under_level_two() {
    let r = render(
        model(),
        "# T\n\n### Before any\n\n## 1. One\n\n### 1.1 Sub `x`\n\n### 1.2 Sub\n\n## Two\n\n#### Deep\n",
    );
    assert_eq!(r.title, "T");
    assert_eq!(
        r.toc_html(),
        "<ul><li><a href=\"#before-any\">Before any</a></li>\
         <li><a href=\"#section-1\">1. One</a><ul>\
         <li><a href=\"#section-1-1\">1.1 Sub <code>x</code></a></li>\
         <li><a href=\"#section-1-2\">1.2 Sub</a></li></ul></li>\
         <li><a href=\"#two\">Two</a></li></ul>"
    );
}

#[test]
fn nothing_in_the_markdown_is_interpreted_as_html() {
    let html = body(
        "<script>alert(1)</script>\n\nText <b onclick=\"x()\">bold</b> & `<i>` a < b\n\n\
         [click](javascript:alert(1)) [q](https://example.org/\"onmouseover=\"x) \
         ![alt text](assets/screenshot.png)\n\n## <img src=x onerror=y>\n",
    );
    for bad in [
        "<script",
        "<b ",
        "<i>",
        "<img",
        "javascript:",
        "\"onmouseover",
    ] {
        assert!(!html.contains(bad), "{bad} in {html}");
    }
    assert!(
        html.contains("&lt;script&gt;alert(1)&lt;/script&gt;"),
        "{html}"
    );
    assert!(html.contains("<code>&lt;i&gt;</code>"), "{html}");
    assert!(html.contains("a &lt; b"), "{html}");
    // The dropped link and image keep their words.
    assert!(
        html.contains("click") && html.contains("alt text"),
        "{html}"
    );
    assert!(
        html.contains("<a href=\"https://example.org/%22onmouseover=%22x\" rel=\"noopener\">q</a>")
            || html.contains(
                "<a href=\"https://example.org/&quot;onmouseover=&quot;x\" rel=\"noopener\">q</a>"
            ),
        "{html}"
    );
}

#[test]
fn links_are_rewritten_for_the_site() {
    let html = body(
        "See [the audit](AUDIT.md#calibration), [round](#section-6-1), \
         [the catalogue](../catalogue/README.md), [out](https://example.org/x) and \
         `audit/AUDIT.md`; from the audit, `MODEL.md` section 6.1 in [a](audit/AUDIT.md).\n",
    );
    assert!(
        html.contains("<a href=\"audit.html#calibration\">the audit</a>"),
        "{html}"
    );
    assert!(
        html.contains("<a href=\"#section-6-1\">round</a>"),
        "{html}"
    );
    assert!(html.contains(" the catalogue, "), "{html}");
    assert!(
        html.contains("<a href=\"https://example.org/x\" rel=\"noopener\">out</a>"),
        "{html}"
    );
    assert!(
        html.contains("<a href=\"audit.html\"><code>audit/AUDIT.md</code></a>"),
        "{html}"
    );
    // A code span naming this page itself stays code.
    assert!(html.contains("<code>MODEL.md</code> section 6.1"), "{html}");
    assert!(html.contains("<a href=\"audit.html\">a</a>"), "{html}");
    assert_eq!(attributes(&html, "href").len(), 5, "{html}");
}

#[test]
fn tables_scroll_in_a_focusable_box_and_code_blocks_stay_code() {
    let html = body("| a | b |\n|---|---|\n| `x*y` | <u>2</u> |\n\n    t = max(a, b) * 2 < 3\n");
    let wrap = html.find("<div class=\"table-wrap\" tabindex=\"0\">");
    let table = html.find("<table>");
    assert!(wrap.is_some() && wrap < table, "{html}");
    assert!(html.contains("</table>\n</div>"), "{html}");
    assert!(html.contains("<td><code>x*y</code></td>"), "{html}");
    assert!(html.contains("&lt;u&gt;2&lt;/u&gt;"), "{html}");
    assert!(
        html.contains("<pre><code>t = max(a, b) * 2 &lt; 3\n</code></pre>"),
        "{html}"
    );
}

/// The numbered headings of a Markdown text, read from its lines ("### 6.1 The round"
/// gives "6.1"), independently of the renderer.
fn numbered_sections(markdown: &str) -> Vec<String> {
    let mut in_fence = false;
    let mut found = Vec::new();
    for line in markdown.lines() {
        if line.starts_with("```") {
            in_fence = !in_fence;
        }
        let Some(rest) = line.strip_prefix('#') else {
            continue;
        };
        if in_fence {
            continue;
        }
        let rest = rest.trim_start_matches('#');
        let Some(token) = rest.strip_prefix(' ').and_then(|r| r.split(' ').next()) else {
            continue;
        };
        let number = token.trim_end_matches('.');
        if !number.is_empty() && number.chars().all(|c| c.is_ascii_digit() || c == '.') {
            found.push(number.to_string());
        }
    }
    found
}

#[test]
fn every_numbered_section_of_the_model_has_its_section_id() {
    let sections = numbered_sections(model().markdown);
    // The explorer's explanations link to these; renumbering MODEL.md breaks them.
    for must in [
        "1", "3", "4", "5", "6", "6.1", "6.3", "6.4", "6.5", "6.6", "8", "9", "10",
    ] {
        assert!(
            sections.iter().any(|s| s == must),
            "no section {must} in MODEL.md"
        );
    }
    let page = String::from_utf8(site().remove(0).bytes).unwrap();
    let ids: HashSet<&str> = attributes(&page, "id").into_iter().collect();
    for s in &sections {
        let id = format!("section-{}", s.replace('.', "-"));
        assert!(ids.contains(id.as_str()), "{id} missing from model.html");
    }
}

#[test]
fn the_real_documents_render_anchored_and_every_link_leads_somewhere() {
    let files = site();
    let names: HashSet<&str> = files.iter().map(|f| f.name.as_str()).collect();
    let pages: Vec<(String, &Doc)> = DOCS
        .iter()
        .map(|d| {
            let f = files
                .iter()
                .find(|f| f.name == d.page)
                .expect("a page per doc");
            (String::from_utf8(f.bytes.clone()).unwrap(), d)
        })
        .collect();
    let ids_of = |page: &str| -> HashSet<String> {
        attributes(page, "id")
            .into_iter()
            .map(String::from)
            .collect()
    };
    for (page, doc) in &pages {
        // Every id once; every heading of the text anchored by GitHub's id.
        let ids = attributes(page, "id");
        let unique: HashSet<&str> = ids.iter().copied().collect();
        assert_eq!(unique.len(), ids.len(), "repeated ids in {}", doc.page);
        let rendered = doc.render();
        let headings = doc.markdown.lines().filter(|l| l.starts_with('#')).count();
        assert_eq!(rendered.headings.len(), headings, "{}", doc.page);
        for h in &rendered.headings {
            assert!(!h.slug.is_empty(), "{}: {:?}", doc.page, h.text);
            assert!(unique.contains(h.slug.as_str()), "{}: {}", doc.page, h.slug);
        }
        assert!(page.starts_with("<!doctype html>"));
        assert!(
            page.contains(&format!(
                "<meta http-equiv=\"Content-Security-Policy\" content=\"{POLICY}\">"
            )),
            "{}",
            doc.page
        );
        assert!(
            !page.contains("<script") && !page.contains(" style="),
            "{}",
            doc.page
        );
        for outside in ["/work/", "shared/", "file://"] {
            assert!(!page.contains(outside), "{outside} in {}", doc.page);
        }
        // Every address leads to a file of the site and an id on it, or outside.
        let mut hrefs = attributes(page, "href");
        hrefs.retain(|h| !h.starts_with("https://"));
        assert!(hrefs.len() > 5, "{}", doc.page);
        for href in hrefs {
            if href == "../" {
                continue;
            }
            let (file, fragment) = href.split_once('#').unwrap_or((href, ""));
            let target = if file.is_empty() {
                page.as_str()
            } else {
                assert!(names.contains(file), "{href} on {}: no such file", doc.page);
                match pages.iter().find(|(_, d)| d.page == file) {
                    Some((p, _)) => p.as_str(),
                    None => continue,
                }
            };
            if !fragment.is_empty() {
                assert!(
                    ids_of(target).contains(fragment),
                    "{href} on {}: no such place",
                    doc.page
                );
            }
        }
    }
    // The audit's references to the model's sections lead there.
    assert!(pages[1].0.contains("href=\"model.html#section-3\""));
}

#[test]
fn the_explorers_footer_links_to_each_page() {
    // The footer is in the page crate's source; the pages land in the site's `docs/`.
    let footer = include_str!("../../../src/ui/mod.rs");
    for doc in &DOCS {
        let href = format!("<a href=\"{}/{}\">", crate::FOLDER, doc.page);
        assert!(footer.contains(&href), "the footer lacks {href}");
    }
}
