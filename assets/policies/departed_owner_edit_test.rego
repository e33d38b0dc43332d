package vantage.pack.departed_owner_edit_test

import rego.v1

import data.vantage.pack.departed_owner_edit

test_edit_with_departed_owner_fails if {
	violations := departed_owner_edit.deny with input as {"projects": [{"id": "p1", "visibility": "workspace_edit", "finding_types": ["inactive_owner"]}]}
	violations == {{"project": "p1", "msg": "every member can edit it and its owner left"}}
}

test_view_only_passes if {
	count(departed_owner_edit.deny) == 0 with input as {"projects": [{"id": "p1", "visibility": "workspace_view", "finding_types": ["inactive_owner"]}]}
}

test_active_owner_passes if {
	count(departed_owner_edit.deny) == 0 with input as {"projects": [{"id": "p1", "visibility": "workspace_edit", "finding_types": []}]}
}
