# The service's own finding type external_collaborator_access, as a policy.
package vantage.pack.finding_external_collaborator_access

import rego.v1

__rego_metadata__ := {
	"id": "finding_external_collaborator_access",
	"title": "External collaborators can edit (service finding)",
	"severity": "medium",
	"description": "The service reports people outside the workspace who can edit the project.",
	"remediation": "Remove the external collaborators the project no longer needs in the editor's sharing settings.",
}

deny contains violation if {
	some project in input.projects
	"external_collaborator_access" in project.finding_types
	violation := {"project": project.id, "msg": reason(project)}
}

# The service's own words for it, when the inventory carried them.
reason(project) := sprintf("%s: %s", [r.label, r.detail]) if {
	some r in project.review_priority_explanation
	r.id == "external_collaborator_access"
} else := "the service lists it under external_collaborator_access"
