# The service's own finding type public_pii_exposure, as a policy.
package vantage.pack.finding_public_pii_exposure

import rego.v1

__rego_metadata__ := {
	"id": "finding_public_pii_exposure",
	"title": "Public app with personal data (service finding)",
	"severity": "critical",
	"description": "The service reports a public app with open personal-data findings.",
	"remediation": "Fix or ignore the open personal-data findings (vantage pii PROJECT), or narrow the audience.",
}

deny contains violation if {
	some project in input.projects
	"public_pii_exposure" in project.finding_types
	violation := {"project": project.id, "msg": reason(project)}
}

# The service's own words for it, when the inventory carried them.
reason(project) := sprintf("%s: %s", [r.label, r.detail]) if {
	some r in project.review_priority_explanation
	r.id == "public_pii_exposure"
} else := "the service lists it under public_pii_exposure"
