# No scan older than 14 days on a published project.
package vantage.pack.stale_scan

import rego.v1

__rego_metadata__ := {
	"id": "stale_scan",
	"title": "Published project without a recent security scan",
	"severity": "high",
	"description": "A published project whose latest security scan is older than 14 days, or that was never scanned.",
	"remediation": "Run a security scan of the project in the editor, then check again.",
}

max_age_ns := time.parse_duration_ns("336h")

deny contains violation if {
	some project in input.projects
	project.is_published
	project.last_security_scan_at == null
	violation := {"project": project.id, "msg": "published and never scanned"}
}

deny contains violation if {
	some project in input.projects
	project.is_published
	scanned := time.parse_rfc3339_ns(project.last_security_scan_at)
	age := time.now_ns() - scanned
	age > max_age_ns
	violation := {
		"project": project.id,
		"msg": sprintf("published; last scanned %d days ago", [floor(age / (24 * 3600 * 1000000000))]),
	}
}

# A scan time that is absent (not null: never scanned) is not known here:
# neither a pass nor a violation.
unknown contains {"project": project.id, "msg": "last scan not known here (a snapshot does not keep scan times)"} if {
	some project in input.projects
	project.is_published
	not has_field(project, "last_security_scan_at")
}

has_field(object, name) if {
	_ = object[name]
}
