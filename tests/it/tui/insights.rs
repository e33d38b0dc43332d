//! The insights screen: its counts add up to the total, the projects not
//! scored yet included (issue 14).

use serde_json::json;
use vantage::tui::screens::insights;

use crate::tui::inventory::{NOW, text};
use crate::tui::support::{answer, app, only};

pub(crate) fn insights(
    total: i64,
    needs: i64,
    recommended: i64,
    none: i64,
) -> vantage::api::model::Insights {
    let metric = |value: i64| json!({"value": value, "delta_30d": 0, "delta_window": "30 days"});
    serde_json::from_value(json!({
        "as_of": "2026-11-22T11:59:00Z",
        "findings": [],
        "summary": {
            "total_projects": metric(total), "externally_published": metric(10),
            "workspace_members": metric(800),
            "risk": {"needs_review": needs, "review_recommended": recommended, "no_review_needed": none}
        }
    }))
    .unwrap()
}

#[test]
fn insights_shows_unscored_projects_so_the_parts_add_up_to_the_total() {
    let mut app = app();
    let effects = app.start(NOW);
    let token = only(&effects, insights::INSIGHTS).token;
    let loaded = Ok(insights(5_000, 408, 463, 3_726));
    app.handle(
        answer(insights::INSIGHTS, token, loaded, insights::Msg::Loaded),
        NOW,
    );
    let screen = text(&app, 120, 35);
    assert!(screen.contains("not scored yet 403"), "{screen}");
    assert!(screen.contains("5,000"), "{screen}");
}
