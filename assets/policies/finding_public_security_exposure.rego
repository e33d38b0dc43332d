# The service's own finding type public_security_exposure, as a policy.
package vantage.pack.finding_public_security_exposure

import rego.v1

__rego_metadata__ := {
	"id": "finding_public_security_exposure",
	"title": "Public app with security issues (service finding)",
	"severity": "critical",
	"description": "The service reports a public app with errors or exposed secrets in its latest scan.",
	"remediation": "Fix the scan's errors and rotate exposed secrets (vantage scans findings PROJECT SCAN), or unpublish: vantage projects unpublish PROJECT.",
}

deny contains violation if {
	some project in input.projects
	"public_security_exposure" in project.finding_types
	violation := {"project": project.id, "msg": reason(project)}
}

# The service's own words for it, when the inventory carried them.
reason(project) := sprintf("%s: %s", [r.label, r.detail]) if {
	some r in project.review_priority_explanation
	r.id == "public_security_exposure"
} else := "the service lists it under public_security_exposure"
