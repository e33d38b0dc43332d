package vantage.pack.finding_inactive_owner_test

import rego.v1

import data.vantage.pack.finding_inactive_owner

test_listed_project_fails if {
	violations := finding_inactive_owner.deny with input as {"projects": [{"id": "p1", "finding_types": ["inactive_owner"], "review_priority_explanation": [{"id": "inactive_owner", "label": "L", "detail": "D"}]}]}
	violations == {{"project": "p1", "msg": "L: D"}}
}

test_snapshot_without_explanation_still_fails if {
	violations := finding_inactive_owner.deny with input as {"projects": [{"id": "p1", "finding_types": ["inactive_owner"]}]}
	violations == {{"project": "p1", "msg": "the service lists it under inactive_owner"}}
}

test_other_projects_pass if {
	count(finding_inactive_owner.deny) == 0 with input as {"projects": [{"id": "p1", "finding_types": ["other"]}, {"id": "p2"}]}
}
