# Every published project reviewed within 30 days, and re-reviewed after any change.
package vantage.pack.review_current

import rego.v1

__rego_metadata__ := {
	"id": "review_current",
	"title": "Published project without a current review",
	"severity": "medium",
	"description": "A published project that nobody marked reviewed in the last 30 days, or that changed since its review.",
	"remediation": "Review the project and mark it: vantage reviewed mark PROJECT --note TEXT (or space in the dashboard).",
}

max_age_ns := time.parse_duration_ns("720h")

deny contains violation if {
	some project in input.projects
	project.is_published
	not project.review
	violation := {"project": project.id, "msg": "published and never reviewed"}
}

deny contains violation if {
	some project in input.projects
	project.is_published
	age := time.now_ns() - time.parse_rfc3339_ns(project.review.marked_at)
	age > max_age_ns
	violation := {
		"project": project.id,
		"msg": sprintf("published; last reviewed %d days ago", [floor(age / (24 * 3600 * 1000000000))]),
	}
}

deny contains violation if {
	some project in input.projects
	project.is_published
	project.review.changed_since_review == true
	violation := {
		"project": project.id,
		"msg": sprintf("published; changed since its review (%s)", [concat(", ", project.review.changed_fields)]),
	}
}
