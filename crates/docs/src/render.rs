//! One document's Markdown to the HTML of its page's text: anchored headings, a table
//! of contents, links rewritten for the site, and nothing the Markdown could inject
//! (raw HTML in it is shown as text).

use crate::anchor::{section_id, section_number, Slugger};
use crate::links::{code_span_link, resolve, Target};
use crate::{escape, Doc};
use pulldown_cmark::{CowStr, Event, HeadingLevel, Options, Parser, Tag, TagEnd};

/// A heading of the document and its anchors.
#[derive(Debug, Clone)]
pub struct Heading {
    pub level: u8,
    /// Its text, code spans included (what GitHub's slug is made from).
    pub text: String,
    /// Its text as HTML, code spans kept, links dropped (for the table of contents).
    pub html: String,
    /// GitHub's id for it.
    pub slug: String,
    /// `section-6-1` for a heading numbered 6.1.
    pub section: Option<String>,
}

impl Heading {
    /// The id the table of contents links to: the stable section id where there is one.
    pub fn id(&self) -> &str {
        self.section.as_deref().unwrap_or(&self.slug)
    }
}

pub struct Rendered {
    /// The first level-1 heading's text, or the document's label.
    pub title: String,
    pub headings: Vec<Heading>,
    /// The text up to and including the title, then the rest.
    pub head_html: String,
    pub body_html: String,
    /// Every `href` written into the text.
    pub hrefs: Vec<String>,
}

impl Rendered {
    /// The table of contents: levels 2 and 3, nested.
    pub fn toc_html(&self) -> String {
        let mut out = String::from("<ul>");
        let mut open_sub = false;
        let mut open_item = false;
        for h in self
            .headings
            .iter()
            .filter(|h| h.level == 2 || h.level == 3)
        {
            let link = format!("<a href=\"#{}\">{}</a>", escape(h.id()), h.html);
            if h.level == 3 && open_item {
                if !open_sub {
                    out.push_str("<ul>");
                    open_sub = true;
                }
                out.push_str(&format!("<li>{link}</li>"));
                continue;
            }
            if open_sub {
                out.push_str("</ul>");
                open_sub = false;
            }
            if open_item {
                out.push_str("</li>");
            }
            out.push_str(&format!("<li>{link}"));
            open_item = true;
        }
        if open_sub {
            out.push_str("</ul>");
        }
        if open_item {
            out.push_str("</li>");
        }
        out.push_str("</ul>");
        out
    }
}

fn level(l: HeadingLevel) -> u8 {
    match l {
        HeadingLevel::H1 => 1,
        HeadingLevel::H2 => 2,
        HeadingLevel::H3 => 3,
        HeadingLevel::H4 => 4,
        HeadingLevel::H5 => 5,
        HeadingLevel::H6 => 6,
    }
}

/// Renders `doc`'s Markdown.
pub fn render(doc: &Doc, markdown: &str) -> Rendered {
    let options = Options::ENABLE_TABLES | Options::ENABLE_STRIKETHROUGH;
    let events: Vec<Event> = Parser::new_ext(markdown, options).collect();
    let mut hrefs = Vec::new();
    let events = rewrite_inline(events, doc, &mut hrefs);
    let (events, headings, title_end) = anchor_headings(events);
    let title = headings
        .iter()
        .find(|h| h.level == 1)
        .map(|h| h.text.clone())
        .unwrap_or_else(|| doc.label.to_string());
    let (head, body) = events.split_at(title_end);
    let mut head_html = String::new();
    pulldown_cmark::html::push_html(&mut head_html, head.iter().cloned());
    let mut body_html = String::new();
    pulldown_cmark::html::push_html(&mut body_html, body.iter().cloned());
    Rendered {
        title,
        headings,
        head_html,
        body_html,
        hrefs,
    }
}

fn html<'a>(s: String) -> Event<'a> {
    Event::InlineHtml(CowStr::from(s))
}

/// Links, images, code spans naming a document, tables, code blocks and raw HTML.
fn rewrite_inline<'a>(
    events: Vec<Event<'a>>,
    doc: &Doc,
    hrefs: &mut Vec<String>,
) -> Vec<Event<'a>> {
    let mut out = Vec::with_capacity(events.len());
    // For each open link, whether it was written as an anchor.
    let mut links: Vec<bool> = Vec::new();
    let mut iter = events.into_iter().peekable();
    while let Some(event) = iter.next() {
        match event {
            Event::Start(Tag::Link {
                dest_url, title, ..
            }) => {
                let title = if title.is_empty() {
                    String::new()
                } else {
                    format!(" title=\"{}\"", escape(&title))
                };
                let anchor = match resolve(&dest_url, doc) {
                    Target::External(url) => {
                        hrefs.push(url.clone());
                        Some(format!(
                            "<a href=\"{}\" rel=\"noopener\"{title}>",
                            escape(&url)
                        ))
                    }
                    Target::Site(href) => {
                        hrefs.push(href.clone());
                        Some(format!("<a href=\"{}\"{title}>", escape(&href)))
                    }
                    Target::NotAPage => None,
                };
                links.push(anchor.is_some());
                out.extend(anchor.map(html));
            }
            Event::End(TagEnd::Link) => {
                if links.pop() == Some(true) {
                    out.push(html("</a>".into()));
                }
            }
            // An image would load a file the site does not serve: its description stays.
            Event::Start(Tag::Image { .. }) | Event::End(TagEnd::Image) => {}
            Event::Code(code) => {
                let following = match iter.peek() {
                    Some(Event::Text(t)) => t.to_string(),
                    _ => String::new(),
                };
                let link = links
                    .is_empty()
                    .then(|| code_span_link(&code, &following, doc))
                    .flatten();
                match link {
                    Some(href) => {
                        out.push(html(format!("<a href=\"{}\">", escape(&href))));
                        hrefs.push(href);
                        out.push(Event::Code(code));
                        out.push(html("</a>".into()));
                    }
                    None => out.push(Event::Code(code)),
                }
            }
            // Wide tables scroll in a box a keyboard can reach.
            Event::Start(Tag::Table(a)) => {
                out.push(Event::Html(
                    "<div class=\"table-wrap\" tabindex=\"0\">\n".into(),
                ));
                out.push(Event::Start(Tag::Table(a)));
            }
            Event::End(TagEnd::Table) => {
                out.push(Event::End(TagEnd::Table));
                out.push(Event::Html("</div>\n".into()));
            }
            // Raw HTML in the Markdown is shown, never interpreted.
            Event::Html(raw) | Event::InlineHtml(raw) => out.push(Event::Text(raw)),
            Event::InlineMath(m) | Event::DisplayMath(m) => out.push(Event::Text(m)),
            other => out.push(other),
        }
    }
    out
}

/// Gives every heading its GitHub id, and a numbered one its `section-…` id too (on the
/// heading, with GitHub's id on an empty marker inside it). Returns the events, the
/// headings and the index just after the first level-1 heading.
fn anchor_headings(events: Vec<Event<'_>>) -> (Vec<Event<'_>>, Vec<Heading>, usize) {
    let mut out = Vec::with_capacity(events.len());
    let mut headings = Vec::new();
    let mut slugger = Slugger::default();
    let mut title_end = None;
    let mut iter = events.into_iter();
    while let Some(event) = iter.next() {
        let (l, classes, attrs) = match event {
            Event::Start(Tag::Heading {
                level,
                classes,
                attrs,
                ..
            }) => (level, classes, attrs),
            other => {
                out.push(other);
                continue;
            }
        };
        let inner: Vec<Event> = iter
            .by_ref()
            .take_while(|e| !matches!(e, Event::End(TagEnd::Heading(_))))
            .collect();
        let mut text = String::new();
        let mut toc = String::new();
        for e in &inner {
            match e {
                Event::Text(t) => {
                    text.push_str(t);
                    toc.push_str(&escape(t));
                }
                Event::Code(c) => {
                    text.push_str(c);
                    toc.push_str(&format!("<code>{}</code>", escape(c)));
                }
                _ => {}
            }
        }
        let slug = slugger.slug(&text);
        let section = section_number(&text).map(section_id);
        let heading = Heading {
            level: level(l),
            text: text.trim().to_string(),
            html: toc.trim().to_string(),
            slug: slug.clone(),
            section: section.clone(),
        };
        out.push(Event::Start(Tag::Heading {
            level: l,
            id: Some(CowStr::from(heading.id().to_string())),
            classes,
            attrs,
        }));
        if section.is_some() {
            out.push(html(format!("<span id=\"{}\"></span>", escape(&slug))));
        }
        out.extend(inner);
        out.push(Event::End(TagEnd::Heading(l)));
        if heading.level == 1 && title_end.is_none() {
            title_end = Some(out.len());
        }
        headings.push(heading);
    }
    let title_end = title_end.unwrap_or(0);
    (out, headings, title_end)
}
