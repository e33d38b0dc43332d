//! The HTML report: one self-contained page. Nothing is loaded from
//! anywhere (a `default-src 'none'` Content-Security-Policy in a `<meta>`
//! tag; the one inline stylesheet allowed by its hash), no script at all, no
//! inline event handler; charts are inline SVG; every value passes through
//! `html/escape.rs`. A print stylesheet breaks pages between sections and
//! wraps tables instead of clipping them.

mod blocks;
mod charts;
mod escape;
mod history;
mod inventory;
mod now;

use std::fmt::Write;

use base64::Engine;
use sha2::{Digest, Sha256};

use super::gather::ReportData;
use super::sections as words;

/// The page's one stylesheet (its hash goes into the policy).
const STYLE: &str = r#"
:root { color-scheme: light; --ink: #1d232b; --muted: #5b6573; --line: #d5dae1; --accent: #2f5d8a; }
* { box-sizing: border-box; }
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, "Noto Sans", sans-serif; color: var(--ink); margin: 0 auto; max-width: 1100px; padding: 24px; }
h1 { font-size: 1.7em; margin: 0 0 .3em; }
h2 { font-size: 1.3em; border-bottom: 2px solid var(--accent); padding-bottom: .2em; margin-top: 2em; }
h3 { font-size: 1.05em; margin: 1.2em 0 .4em; }
.source, .missing, .note { color: var(--muted); font-size: .9em; }
.missing { border-left: 4px solid #b8860b; padding: .3em .6em; background: #fff8e6; color: #5a4500; }
dl.facts { display: grid; grid-template-columns: max-content 1fr; gap: .2em 1.2em; }
dl.facts dt { font-weight: 600; }
dl.facts dd { margin: 0; overflow-wrap: anywhere; }
table { border-collapse: collapse; width: 100%; margin: .5em 0 1em; font-size: .9em; }
th, td { border: 1px solid var(--line); padding: .25em .45em; text-align: left; vertical-align: top; overflow-wrap: anywhere; }
th { background: #eef1f5; white-space: nowrap; }
td { min-width: 7ch; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; min-width: 0; }
tr:nth-child(even) td { background: #fafbfc; }
ul.reasons { margin: 0; padding-left: 1.1em; }
figure { margin: 1em 0; }
figcaption { font-weight: 600; margin-bottom: .3em; }
svg.chart { max-width: 100%; height: auto; }
svg .label, svg .value, svg .tick { font: 12px system-ui, sans-serif; fill: var(--ink); }
svg .tick { fill: var(--muted); }
svg .axis { stroke: var(--muted); stroke-width: 1; }
.needs_review { fill: #b3261e; stroke: #b3261e; }
.review_recommended { fill: #c77700; stroke: #c77700; }
.no_review_needed { fill: #2e7d32; stroke: #2e7d32; }
.unscored { fill: #8a8f98; stroke: #8a8f98; }
.published { fill: #2f5d8a; stroke: #2f5d8a; }
.public_pii { fill: #6a1b9a; stroke: #6a1b9a; }
.reviewed { fill: #2e7d32; stroke: #2e7d32; }
.total { fill: #8a8f98; stroke: #8a8f98; }
polyline { stroke-width: 2; fill: none; }
details > summary { cursor: pointer; font-weight: 600; }
/* A section off screen is not laid out until it comes near: 20,000 rows open in a blink. */
section { content-visibility: auto; contain-intrinsic-size: auto 1200px; }
footer { margin-top: 3em; color: var(--muted); font-size: .85em; }
@media print {
  body { max-width: none; padding: 0; font-size: 10.5pt; }
  section { break-before: page; content-visibility: visible; }
  h2, h3, figcaption { break-after: avoid; }
  tr, figure, svg { break-inside: avoid; }
  thead { display: table-header-group; }
  table { table-layout: auto; width: 100%; }
  details::details-content { content-visibility: visible; display: block; }
  details > summary { list-style: none; }
  a { color: inherit; text-decoration: none; }
}
"#;

/// The Content-Security-Policy: nothing from anywhere, the stylesheet by
/// its hash, no script, no form, no base.
fn policy() -> String {
    let hash = Sha256::digest(STYLE.as_bytes());
    let hash = base64::engine::general_purpose::STANDARD.encode(hash);
    format!(
        "default-src 'none'; style-src 'sha256-{hash}'; img-src data:; script-src 'none'; \
         base-uri 'none'; form-action 'none'"
    )
}

/// The report as one HTML page.
pub fn render(data: &ReportData) -> String {
    let projects = data.live.inventory.value().map_or(0, |i| i.items.len());
    let mut out = String::with_capacity(64 * 1024 + projects * 400);
    let title = words::title(data);
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\
         <meta http-equiv=\"Content-Security-Policy\" content=\"{}\">\
         <meta name=\"referrer\" content=\"no-referrer\">\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\
         <meta name=\"generator\" content=\"{}\"><title>",
        policy(),
        escape::text(&data.live.header.vantage_version)
    );
    escape::push(&mut out, &title);
    out.push_str("</title><style>");
    out.push_str(STYLE);
    out.push_str("</style></head><body>\n");
    now::header(&mut out, data, &title);
    now::posture(&mut out, data);
    now::attention(&mut out, data);
    history::changes(&mut out, data);
    history::coverage(&mut out, data);
    inventory::scans(&mut out, data);
    inventory::members(&mut out, data);
    inventory::appendix(&mut out, data);
    out.push_str("<footer>Written by ");
    escape::push(&mut out, &data.live.header.vantage_version);
    out.push_str(". Every value from the service or the history is shown as text; this file loads nothing.</footer>\n</body></html>\n");
    out
}
