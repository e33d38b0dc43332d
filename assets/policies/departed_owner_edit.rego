# No workspace_edit for a project owned by someone who left.
package vantage.pack.departed_owner_edit

import rego.v1

__rego_metadata__ := {
	"id": "departed_owner_edit",
	"title": "Every member can edit a project whose owner left",
	"severity": "high",
	"description": "The project's visibility is workspace_edit while the service reports its owner inactive (finding type inactive_owner): nobody answers for what members change.",
	"remediation": "Transfer the project to an active owner, or restrict it: vantage projects set-visibility PROJECT workspace_view.",
}

deny contains violation if {
	some project in input.projects
	project.visibility == "workspace_edit"
	"inactive_owner" in project.finding_types
	violation := {"project": project.id, "msg": "every member can edit it and its owner left"}
}
