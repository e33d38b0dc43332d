package vantage.pack.finding_external_collaborator_access_test

import rego.v1

import data.vantage.pack.finding_external_collaborator_access

test_listed_project_fails if {
	violations := finding_external_collaborator_access.deny with input as {"projects": [{"id": "p1", "finding_types": ["external_collaborator_access"], "review_priority_explanation": [{"id": "external_collaborator_access", "label": "L", "detail": "D"}]}]}
	violations == {{"project": "p1", "msg": "L: D"}}
}

test_snapshot_without_explanation_still_fails if {
	violations := finding_external_collaborator_access.deny with input as {"projects": [{"id": "p1", "finding_types": ["external_collaborator_access"]}]}
	violations == {{"project": "p1", "msg": "the service lists it under external_collaborator_access"}}
}

test_other_projects_pass if {
	count(finding_external_collaborator_access.deny) == 0 with input as {"projects": [{"id": "p1", "finding_types": ["other"]}, {"id": "p2"}]}
}
