# The service's own finding type inactive_owner, as a policy.
package vantage.pack.finding_inactive_owner

import rego.v1

__rego_metadata__ := {
	"id": "finding_inactive_owner",
	"title": "Inactive owner (service finding)",
	"severity": "low",
	"description": "The service reports that the project's owner left or has not edited for 180 days.",
	"remediation": "Transfer the project to an active member.",
}

deny contains violation if {
	some project in input.projects
	"inactive_owner" in project.finding_types
	violation := {"project": project.id, "msg": reason(project)}
}

# The service's own words for it, when the inventory carried them.
reason(project) := sprintf("%s: %s", [r.label, r.detail]) if {
	some r in project.review_priority_explanation
	r.id == "inactive_owner"
} else := "the service lists it under inactive_owner"
