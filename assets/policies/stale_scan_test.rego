package vantage.pack.stale_scan_test

import rego.v1

import data.vantage.pack.stale_scan

# time.now_ns() answers the input's evaluated_at; the tests run at 2026-11-28T12:00:00Z.

test_never_scanned_published_fails if {
	violations := stale_scan.deny with input as {"projects": [{"id": "p1", "is_published": true, "last_security_scan_at": null}]}
	violations == {{"project": "p1", "msg": "published and never scanned"}}
}

test_old_scan_fails if {
	violations := stale_scan.deny with input as {"projects": [{"id": "p1", "is_published": true, "last_security_scan_at": "2026-11-01T12:00:00.000Z"}]}
	violations == {{"project": "p1", "msg": "published; last scanned 27 days ago"}}
}

test_recent_scan_passes if {
	count(stale_scan.deny) == 0 with input as {"projects": [{"id": "p1", "is_published": true, "last_security_scan_at": "2026-11-20T12:00:00.000Z"}]}
}

test_unpublished_passes if {
	count(stale_scan.deny) == 0 with input as {"projects": [{"id": "p1", "is_published": false, "last_security_scan_at": null}]}
}

test_unknown_scan_time_is_not_a_violation if {
	count(stale_scan.deny) == 0 with input as {"projects": [{"id": "p1", "is_published": true}]}
}

test_unknown_scan_time_is_not_judged if {
	not_judged := stale_scan.unknown with input as {"projects": [{"id": "p1", "is_published": true}]}
	not_judged == {{"project": "p1", "msg": "last scan not known here (a snapshot does not keep scan times)"}}
}

test_never_scanned_is_judged if {
	count(stale_scan.unknown) == 0 with input as {"projects": [{"id": "p1", "is_published": true, "last_security_scan_at": null}]}
}

test_known_scan_time_is_judged if {
	count(stale_scan.unknown) == 0 with input as {"projects": [{"id": "p1", "is_published": true, "last_security_scan_at": "2026-11-20T12:00:00.000Z"}]}
}

test_unpublished_without_scan_time_needs_no_judgement if {
	count(stale_scan.unknown) == 0 with input as {"projects": [{"id": "p1", "is_published": false}]}
}
