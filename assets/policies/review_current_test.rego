package vantage.pack.review_current_test

import rego.v1

import data.vantage.pack.review_current

# time.now_ns() answers 2026-11-28T12:00:00Z in these tests.

reviewed(at, changed) := {"marked_at": at, "changed_since_review": changed, "changed_fields": ["visibility"]}

test_never_reviewed_fails if {
	violations := review_current.deny with input as {"projects": [{"id": "p1", "is_published": true}]}
	violations == {{"project": "p1", "msg": "published and never reviewed"}}
}

test_old_review_fails if {
	violations := review_current.deny with input as {"projects": [{"id": "p1", "is_published": true, "review": reviewed("2026-10-01T12:00:00.000Z", false)}]}
	violations == {{"project": "p1", "msg": "published; last reviewed 58 days ago"}}
}

test_changed_since_review_fails if {
	violations := review_current.deny with input as {"projects": [{"id": "p1", "is_published": true, "review": reviewed("2026-11-27T12:00:00.000Z", true)}]}
	violations == {{"project": "p1", "msg": "published; changed since its review (visibility)"}}
}

test_current_review_passes if {
	count(review_current.deny) == 0 with input as {"projects": [{"id": "p1", "is_published": true, "review": reviewed("2026-11-27T12:00:00.000Z", false)}]}
}

test_unpublished_passes if {
	count(review_current.deny) == 0 with input as {"projects": [{"id": "p1", "is_published": false}]}
}
