package vantage.pack.public_personal_data_test

import rego.v1

import data.vantage.pack.public_personal_data

project(audience, open) := {"id": "p1", "is_published": audience != null, "publish_audience": audience, "open_pii_findings": open, "has_pii": open > 0}

test_public_with_open_findings_fails if {
	violations := public_personal_data.deny with input as {"projects": [project("public", 2)]}
	violations == {{"project": "p1", "msg": "published to everyone with 2 open personal-data findings"}}
}

test_workspace_audience_passes if {
	count(public_personal_data.deny) == 0 with input as {"projects": [project("workspace", 2)]}
}

test_no_open_findings_passes if {
	count(public_personal_data.deny) == 0 with input as {"projects": [project("public", 0)]}
}

test_unknown_count_is_not_a_violation if {
	count(public_personal_data.deny) == 0 with input as {"projects": [{"id": "p1", "publish_audience": "public"}]}
}

test_detected_without_a_count_fails if {
	violations := public_personal_data.deny with input as {"projects": [{"id": "p1", "publish_audience": "public", "has_pii": true}]}
	violations == {{"project": "p1", "msg": "published to everyone with open personal-data findings"}}
}

test_unknown_count_is_not_judged if {
	not_judged := public_personal_data.unknown with input as {"projects": [{"id": "p1", "publish_audience": "public"}]}
	not_judged == {{"project": "p1", "msg": "open personal-data findings not known here (no count: a snapshot keeps none, a plan without detection has none)"}}
}

test_known_answer_is_judged if {
	count(public_personal_data.unknown) == 0 with input as {"projects": [project("public", 0), {"id": "p2", "publish_audience": "public", "has_pii": true}]}
}

test_not_public_needs_no_judgement if {
	count(public_personal_data.unknown) == 0 with input as {"projects": [{"id": "p1", "publish_audience": "workspace"}, {"id": "p2", "publish_audience": null}]}
}
