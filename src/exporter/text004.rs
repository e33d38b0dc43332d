//! The Prometheus text format 0.0.4, converted from prometheus-client's
//! OpenMetrics text (the crate encodes nothing else).
//!
//! What differs, for the families we write:
//! - a counter family `x` is `# TYPE x counter` with samples `x_total` in
//!   OpenMetrics; 0.0.4 names the family after its samples: `x_total`;
//! - an info family `x` (samples `x_info`) becomes the gauge `x_info`, value 1;
//! - `# UNIT` lines and `# EOF` do not exist in 0.0.4;
//! - OpenMetrics escapes `"` in HELP text, 0.0.4 does not;
//! - label values are escaped alike (`\\`, `\"`, `\n`), so samples pass through.

/// The content type of the 0.0.4 text format.
pub const CONTENT_TYPE: &str = "text/plain; version=0.0.4; charset=utf-8";

/// Converts OpenMetrics text (one registry's families, with or without
/// `# EOF`) to the 0.0.4 text format.
pub fn from_openmetrics(openmetrics: &str) -> String {
    let mut out = String::with_capacity(openmetrics.len());
    // The HELP line waits for its TYPE line, which decides the family's name.
    let mut pending_help: Option<(&str, &str)> = None;
    // Samples of these names are dropped (a counter's `_created`).
    let mut dropped_sample: Option<String> = None;
    for line in openmetrics.lines() {
        if let Some(rest) = line.strip_prefix("# HELP ") {
            let (name, help) = rest.split_once(' ').unwrap_or((rest, ""));
            pending_help = Some((name, help));
        } else if let Some(rest) = line.strip_prefix("# TYPE ") {
            let (name, kind) = rest.split_once(' ').unwrap_or((rest, "unknown"));
            let (name_004, kind_004) = match kind {
                "counter" => (format!("{name}_total"), "counter"),
                "gauge" => (name.to_owned(), "gauge"),
                "info" => (format!("{name}_info"), "gauge"),
                "stateset" => (name.to_owned(), "gauge"),
                "histogram" | "gaugehistogram" => (name.to_owned(), "histogram"),
                "summary" => (name.to_owned(), "summary"),
                _ => (name.to_owned(), "untyped"),
            };
            dropped_sample = (kind == "counter").then(|| format!("{name}_created"));
            if let Some((help_name, help)) = pending_help.take()
                && help_name == name
            {
                out.push_str("# HELP ");
                out.push_str(&name_004);
                out.push(' ');
                out.push_str(&help.replace("\\\"", "\""));
                out.push('\n');
            }
            out.push_str("# TYPE ");
            out.push_str(&name_004);
            out.push(' ');
            out.push_str(kind_004);
            out.push('\n');
        } else if line.starts_with("# UNIT ") || line == "# EOF" || line.is_empty() {
            continue;
        } else if line.starts_with('#') {
            // No other comment exists in OpenMetrics text.
            continue;
        } else {
            let sample_name = line.split(['{', ' ']).next().unwrap_or(line);
            if dropped_sample.as_deref() == Some(sample_name) {
                continue;
            }
            out.push_str(line);
            out.push('\n');
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counters_take_their_samples_name_and_eof_goes() {
        let openmetrics = "# HELP vantage_client_requests API requests.\n\
            # TYPE vantage_client_requests counter\n\
            vantage_client_requests_total{status=\"200\"} 3\n\
            vantage_client_requests_created{status=\"200\"} 1700000000.0\n\
            # HELP vantage_projects Projects.\n\
            # TYPE vantage_projects gauge\n\
            vantage_projects{workspace=\"ws\"} 12\n\
            # EOF\n";
        assert_eq!(
            from_openmetrics(openmetrics),
            "# HELP vantage_client_requests_total API requests.\n\
             # TYPE vantage_client_requests_total counter\n\
             vantage_client_requests_total{status=\"200\"} 3\n\
             # HELP vantage_projects Projects.\n\
             # TYPE vantage_projects gauge\n\
             vantage_projects{workspace=\"ws\"} 12\n"
        );
    }

    #[test]
    fn info_becomes_a_gauge_and_units_go() {
        let openmetrics = "# HELP vantage_project Name.\n\
            # TYPE vantage_project info\n\
            vantage_project_info{project=\"p1\",name=\"a \\\"b\\\"\\nc\"} 1\n\
            # HELP vantage_age_seconds Age.\n\
            # TYPE vantage_age_seconds gauge\n\
            # UNIT vantage_age_seconds seconds\n\
            vantage_age_seconds 1.5\n";
        assert_eq!(
            from_openmetrics(openmetrics),
            "# HELP vantage_project_info Name.\n\
             # TYPE vantage_project_info gauge\n\
             vantage_project_info{project=\"p1\",name=\"a \\\"b\\\"\\nc\"} 1\n\
             # HELP vantage_age_seconds Age.\n\
             # TYPE vantage_age_seconds gauge\n\
             vantage_age_seconds 1.5\n"
        );
    }

    #[test]
    fn help_quotes_are_unescaped_and_unknown_is_untyped() {
        let openmetrics = "# HELP x Say \\\"hi\\\".\n# TYPE x unknown\nx 1\n";
        assert_eq!(
            from_openmetrics(openmetrics),
            "# HELP x Say \"hi\".\n# TYPE x untyped\nx 1\n"
        );
    }
}
