# Nothing public with open personal-data findings.
package vantage.pack.public_personal_data

import rego.v1

__rego_metadata__ := {
	"id": "public_personal_data",
	"title": "Public app with open personal-data findings",
	"severity": "critical",
	"description": "A project published to everyone (audience public) while personal-data findings are open: anyone on the internet may read them.",
	"remediation": "Fix or ignore the open personal-data findings (vantage pii PROJECT), or narrow the audience: vantage projects set-audience PROJECT workspace.",
}

deny contains violation if {
	some project in input.projects
	project.publish_audience == "public"
	project.has_pii == true
	violation := {"project": project.id, "msg": message(project)}
}

message(project) := sprintf("published to everyone with %d open personal-data findings", [project.open_pii_findings]) if {
	project.open_pii_findings > 0
} else := "published to everyone with open personal-data findings"

# Whether a public project holds open personal-data findings is absent when
# the input could not say (a snapshot keeps no counts; a plan without
# detection has none): neither a pass nor a violation.
unknown contains {"project": project.id, "msg": "open personal-data findings not known here (no count: a snapshot keeps none, a plan without detection has none)"} if {
	some project in input.projects
	project.publish_audience == "public"
	not has_field(project, "has_pii")
}

has_field(object, name) if {
	_ = object[name]
}
