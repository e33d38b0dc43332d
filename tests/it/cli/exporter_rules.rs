//! The shipped alert rules have `promtool test rules` cases, every one of them,
//! and the cases pass (issue 28, part 2, item 3).

use crate::cli::exporter::{assets, promtool_passes};

/// The `alert:` names of a rules file.
fn alert_names(rules: &str) -> Vec<String> {
    rules
        .lines()
        .filter_map(|line| line.trim().strip_prefix("- alert:"))
        .map(|name| name.trim().to_owned())
        .collect()
}

#[test]
fn every_alert_rule_has_a_promtool_test() {
    let dir = assets().join("prometheus");
    let rules = std::fs::read_to_string(dir.join("alerts.yml")).expect("rules");
    let tests = std::fs::read_to_string(dir.join("alerts_test.yml")).expect("rule tests");
    let names = alert_names(&rules);
    assert!(names.len() >= 3, "{names:?}");
    for name in &names {
        // A case that expects it to fire, not only one that expects silence.
        let fires = tests
            .split("alertname: ")
            .skip(1)
            .any(|case| case.starts_with(&format!("{name}\n")) && case.contains("exp_labels"));
        assert!(fires, "no promtool case where {name} fires");
    }
}

#[test]
fn the_rule_tests_pass_promtool() {
    promtool_passes(
        &["test", "rules", "alerts_test.yml"],
        &assets().join("prometheus"),
    );
}

/// Every other rule needs `vantage_*` series: the exporter's own absence
/// pages through Prometheus's `up` (issue 36, item 3).
#[test]
fn the_exporters_own_absence_has_rules() {
    let rules = std::fs::read_to_string(assets().join("prometheus/alerts.yml")).expect("rules");
    let exprs: Vec<&str> = rules
        .lines()
        .filter_map(|line| line.trim().strip_prefix("expr:"))
        .map(str::trim)
        .collect();
    for wanted in ["up{job=\"vantage\"} == 0", "absent(up{job=\"vantage\"})"] {
        assert!(exprs.contains(&wanted), "no rule {wanted:?} in {exprs:?}");
    }
}
