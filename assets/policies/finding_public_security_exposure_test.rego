package vantage.pack.finding_public_security_exposure_test

import rego.v1

import data.vantage.pack.finding_public_security_exposure

test_listed_project_fails if {
	violations := finding_public_security_exposure.deny with input as {"projects": [{"id": "p1", "finding_types": ["public_security_exposure"], "review_priority_explanation": [{"id": "public_security_exposure", "label": "L", "detail": "D"}]}]}
	violations == {{"project": "p1", "msg": "L: D"}}
}

test_snapshot_without_explanation_still_fails if {
	violations := finding_public_security_exposure.deny with input as {"projects": [{"id": "p1", "finding_types": ["public_security_exposure"]}]}
	violations == {{"project": "p1", "msg": "the service lists it under public_security_exposure"}}
}

test_other_projects_pass if {
	count(finding_public_security_exposure.deny) == 0 with input as {"projects": [{"id": "p1", "finding_types": ["other"]}, {"id": "p2"}]}
}
