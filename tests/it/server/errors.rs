//! Every row of the contract's error and versioning tables that the core routes
//! can produce, with the envelope and the headers each answer must carry.

use std::time::Duration;

use reqwest::Method;
use serde_json::{Value, json};
use vantage::server::ServerConfig;
use vantage::server::version::{BetaRevision, VersionCatalog};

use crate::common::*;
use crate::server::support::*;

/// An enterprise project of the demo fixture.
const ACME_PROJECT: &str = "/v1/projects/prj_70256702db4f";
const PRO_PROJECT: &str = "/v1/projects/prj_initech_001";
const MIGRATION_URL: &str = "https://docs.example.invalid/api/migrations";

/// How the server of a case is configured.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Setup {
    Demo,
    /// Four beta revisions: two of `widgets`, one of `dashboards` (incompatible
    /// with `widgets`) and one of `gadgets`, which needs another stable version.
    Betas,
    /// A 30 ms deadline and 2 s of injected latency.
    Deadline,
    /// Every request draws an injected 429.
    Always429,
    /// No stable version is supported.
    NoVersions,
}

async fn server(setup: Setup) -> vantage::server::RunningServer {
    let adjust = move |config: &mut ServerConfig| match setup {
        Setup::Demo => {}
        Setup::Betas => config.versions = beta_catalog(),
        Setup::Deadline => {
            config.deadline = Duration::from_millis(30);
            config.faults = "latency=2000ms".parse().unwrap();
        }
        Setup::Always429 => config.faults = "429=1".parse().unwrap(),
        Setup::NoVersions => config.versions.supported.clear(),
    };
    server_with(adjust).await.0
}

fn beta(name: &str, feature: &str, version: &str) -> BetaRevision {
    BetaRevision {
        name: name.into(),
        feature: feature.into(),
        supported_versions: vec![version.into()],
    }
}

fn beta_catalog() -> VersionCatalog {
    VersionCatalog {
        betas: vec![
            beta("widgets-2026-10-01", "widgets", "2026-09-11"),
            beta("widgets-2026-11-01", "widgets", "2026-09-11"),
            beta("dashboards-2026-10-01", "dashboards", "2026-09-11"),
            beta("gadgets-2026-10-01", "gadgets", "2027-01-01"),
        ],
        incompatible_features: vec![("widgets".into(), "dashboards".into())],
        ..VersionCatalog::default()
    }
}

struct Case {
    name: &'static str,
    setup: Setup,
    method: Method,
    path: &'static str,
    /// Sent as `Service-API-Key`, before `headers`.
    key: Option<&'static str>,
    headers: Vec<(&'static str, String)>,
    body: Option<String>,
    /// The whole error body except `request_id`.
    expect: Value,
    /// Whether `Service-Version: 2026-09-11` is echoed.
    version_echoed: bool,
    /// Whether `X-RateLimit-*` are present.
    rate_headers: bool,
}

fn get_case(name: &'static str, headers: Vec<(&'static str, String)>, expect: Value) -> Case {
    Case {
        name,
        setup: Setup::Demo,
        method: Method::GET,
        path: ACME_PROJECT,
        key: Some(ENTERPRISE_ADMIN),
        headers,
        body: None,
        expect,
        version_echoed: true,
        rate_headers: true,
    }
}

fn patch_case(name: &'static str, body: &str, expect: Value) -> Case {
    Case {
        method: Method::PATCH,
        headers: vec![("Content-Type", "application/json".into())],
        body: Some(body.to_owned()),
        ..get_case(name, Vec::new(), expect)
    }
}

fn h(name: &'static str, value: &str) -> (&'static str, String) {
    (name, value.to_owned())
}

fn invalid(location: &str, message: &str) -> Value {
    json!({
        "type": "invalid_request", "title": "Invalid request", "status": 400,
        "detail": "validation failed",
        "errors": [{"message": message, "location": location}],
        "props": null,
    })
}

fn bad_version() -> Value {
    invalid(
        "header.Service-Version",
        "Service-Version must be exactly one date in the form YYYY-MM-DD",
    )
}

fn bad_beta() -> Value {
    invalid(
        "header.Service-Beta",
        "Service-Beta must be a comma-separated list of beta revision strings",
    )
}

fn error(status: u16, kind: &str, title: &str, detail: Option<&str>, props: Value) -> Value {
    json!({
        "type": kind, "title": title, "status": status,
        "detail": detail, "errors": null, "props": props,
    })
}

fn unauthorized(detail: &str) -> Value {
    error(
        401,
        "unauthorized",
        "Unauthorized",
        Some(detail),
        Value::Null,
    )
}

fn insufficient_scope(scopes: &[&str]) -> Value {
    error(
        403,
        "insufficient_scope",
        "Insufficient scope",
        Some("the API key lacks a scope this operation needs"),
        json!({ "required_scopes": scopes }),
    )
}

fn not_acceptable() -> Value {
    error(
        406,
        "not_acceptable",
        "Not acceptable",
        Some("responses are application/json; send Accept: application/json or */*"),
        Value::Null,
    )
}

/// Rejected while resolving the version: no version echo, no rate headers.
fn before_selection(mut case: Case) -> Case {
    case.version_echoed = false;
    case.rate_headers = false;
    case
}

/// Rejected after version selection, before the rate limit.
fn before_rate_limit(mut case: Case) -> Case {
    case.rate_headers = false;
    case
}

fn version_cases() -> Vec<Case> {
    let v = |value: &str| vec![h("Service-Version", value)];
    let b = |value: &str| vec![h("Service-Beta", value)];
    let unknown_version = error(400, "unknown_version", "Unknown version", None, Value::Null);
    let retired_version = error(
        410,
        "retired_version",
        "Retired version",
        Some("API version 2026-01-15 is retired"),
        json!({ "migration_url": MIGRATION_URL }),
    );
    let longest_beta = "a".repeat(512);
    let unknown_longest = format!("beta {longest_beta} is not released");
    let cases = vec![
        get_case("version: one digit month", v("2026-9-11"), bad_version()),
        get_case("version: no dashes", v("20260911"), bad_version()),
        get_case("version: a word", v("latest"), bad_version()),
        get_case("version: empty", v(""), bad_version()),
        get_case("version: impossible date", v("2026-02-30"), bad_version()),
        get_case(
            "version: with a time",
            v("2026-09-11T00:00:00Z"),
            bad_version(),
        ),
        get_case(
            "version: two dates in one header",
            v("2026-09-11, 2026-09-11"),
            bad_version(),
        ),
        get_case(
            "version: two headers",
            vec![
                h("Service-Version", "2026-09-11"),
                h("Service-Version", "2026-09-11"),
            ],
            bad_version(),
        ),
        get_case(
            "version: unknown date",
            v("2026-09-12"),
            unknown_version.clone(),
        ),
        get_case(
            "version: unknown old date",
            v("2019-01-01"),
            unknown_version,
        ),
        get_case("version: retired", v("2026-01-15"), retired_version.clone()),
        get_case("beta: empty", b(""), bad_beta()),
        get_case("beta: only spaces", b("   "), bad_beta()),
        get_case("beta: too long", b(&"a".repeat(513)), bad_beta()),
        get_case("beta: empty item", b("a,,b"), bad_beta()),
        get_case("beta: trailing comma", b("a,"), bad_beta()),
        get_case("beta: space inside", b("bad beta"), bad_beta()),
        get_case("beta: semicolons", b("a;b"), bad_beta()),
        get_case("beta: not ASCII", b("café-2026-01-01"), bad_beta()),
        get_case(
            "beta: longest well-formed, not released",
            b(&longest_beta),
            error(
                400,
                "unknown_beta",
                "Unknown beta",
                Some(&unknown_longest),
                Value::Null,
            ),
        ),
        get_case(
            "beta: unknown",
            b("nope-2026-01-01"),
            error(
                400,
                "unknown_beta",
                "Unknown beta",
                Some("beta nope-2026-01-01 is not released"),
                Value::Null,
            ),
        ),
        get_case(
            "beta: retired",
            b("insights-2026-05-01"),
            error(
                410,
                "retired_beta",
                "Retired beta",
                Some("beta insights-2026-05-01 is retired"),
                json!({ "migration_url": MIGRATION_URL }),
            ),
        ),
        Case {
            setup: Setup::NoVersions,
            ..get_case(
                "503: no stable version supported",
                vec![],
                error(
                    503,
                    "no_supported_version",
                    "No supported version",
                    Some("no stable API version is currently supported"),
                    Value::Null,
                ),
            )
        },
        get_case(
            "version is resolved before betas",
            vec![
                h("Service-Version", "2026-01-15"),
                h("Service-Beta", "nope-2026-01-01"),
            ],
            retired_version,
        ),
        Case {
            key: None,
            ..get_case(
                "version is resolved before the credential",
                v("2026-9-11"),
                bad_version(),
            )
        },
        Case {
            setup: Setup::Betas,
            ..get_case(
                "beta: needs another stable version",
                b("gadgets-2026-10-01"),
                error(
                    400,
                    "unsupported_beta_version",
                    "Unsupported beta version",
                    Some("beta gadgets-2026-10-01 does not support API version 2026-09-11"),
                    Value::Null,
                ),
            )
        },
        Case {
            setup: Setup::Betas,
            ..get_case(
                "beta: two revisions of one feature",
                b("widgets-2026-10-01, widgets-2026-11-01"),
                error(
                    400,
                    "conflicting_betas",
                    "Conflicting betas",
                    Some("betas widgets-2026-10-01 and widgets-2026-11-01 cannot be combined"),
                    Value::Null,
                ),
            )
        },
        Case {
            setup: Setup::Betas,
            ..get_case(
                "beta: incompatible features, in two headers",
                vec![
                    h("Service-Beta", "dashboards-2026-10-01"),
                    h("Service-Beta", "widgets-2026-11-01"),
                ],
                error(
                    400,
                    "conflicting_betas",
                    "Conflicting betas",
                    Some("betas dashboards-2026-10-01 and widgets-2026-11-01 cannot be combined"),
                    Value::Null,
                ),
            )
        },
    ];
    cases.into_iter().map(before_selection).collect()
}

fn credential_cases() -> Vec<Case> {
    let no_key = |name, headers| Case {
        key: None,
        ..get_case(name, headers, Value::Null)
    };
    let with = |mut case: Case, expect: Value| {
        case.expect = expect;
        before_rate_limit(case)
    };
    vec![
        with(
            no_key("401: no credential", vec![]),
            unauthorized(
                "send an API key in the Service-API-Key header or as Authorization: Bearer <key>",
            ),
        ),
        with(
            no_key("401: unknown key", vec![h("Service-API-Key", "vtg_nope")]),
            unauthorized("the API key is not valid"),
        ),
        with(
            no_key("401: empty key", vec![h("Service-API-Key", "")]),
            unauthorized("the Service-API-Key header is empty or not text"),
        ),
        with(
            no_key(
                "401: unknown Bearer token",
                vec![h("Authorization", "Bearer vtg_nope")],
            ),
            unauthorized("the API key is not valid"),
        ),
        with(
            no_key(
                "401: a valid key under the Basic scheme",
                vec![h("Authorization", &format!("Basic {ENTERPRISE_ADMIN}"))],
            ),
            unauthorized("the Authorization header must use the Bearer scheme"),
        ),
        with(
            no_key(
                "401: a bare key in Authorization",
                vec![h("Authorization", ENTERPRISE_ADMIN)],
            ),
            unauthorized("the Authorization header must use the Bearer scheme"),
        ),
        with(
            no_key(
                "401: Bearer without a token",
                vec![h("Authorization", "Bearer")],
            ),
            unauthorized("the Bearer token is empty"),
        ),
        with(
            no_key(
                "401: a key differing in case",
                vec![h("Service-API-Key", &ENTERPRISE_ADMIN.to_uppercase())],
            ),
            unauthorized("the API key is not valid"),
        ),
    ]
}

fn gate_cases() -> Vec<Case> {
    let payment_required = error(
        402,
        "payment_required",
        "Payment required",
        Some("this operation needs the business plan or higher"),
        json!({ "required_plan": "business" }),
    );
    let not_found = error(
        404,
        "project_not_found",
        "Project not found",
        None,
        Value::Null,
    );
    vec![
        Case {
            key: Some(PRO_ADMIN),
            path: PRO_PROJECT,
            ..get_case("402: pro plan", vec![], payment_required.clone())
        },
        Case {
            key: Some(WORKSPACES_READ),
            ..get_case(
                "403: workspace scope reads a project",
                vec![],
                insufficient_scope(&["projects:read", "projects:write"]),
            )
        },
        Case {
            key: Some(ENTERPRISE_READONLY),
            ..patch_case(
                "403: read-only key updates a project",
                r#"{"name":"x"}"#,
                insufficient_scope(&["projects:write"]),
            )
        },
        Case {
            key: Some(ENTERPRISE_READONLY),
            ..patch_case(
                "scope is checked before the body",
                r#"{"name":"#,
                insufficient_scope(&["projects:write"]),
            )
        },
        Case {
            key: Some(PRO_ADMIN),
            path: PRO_PROJECT,
            ..patch_case(
                "plan is checked before the body",
                r#"{"description":"x"}"#,
                payment_required,
            )
        },
        Case {
            path: "/v1/projects/prj_missing",
            ..get_case("404: unknown project", vec![], not_found.clone())
        },
        Case {
            path: "/v1/projects/prj_missing",
            ..patch_case(
                "the body is validated before the project is looked up",
                r#"{"visibility":"public"}"#,
                invalid(
                    "body.visibility",
                    "visibility must be one of: restricted, workspace_edit, workspace_view",
                ),
            )
        },
        Case {
            path: "/v1/projects/prj_missing",
            ..patch_case("404: update of an unknown project", "{}", not_found)
        },
    ]
}

fn body_cases() -> Vec<Case> {
    let oversized = format!(r#"{{"name":"{}"}}"#, "a".repeat(3 * 1024 * 1024));
    vec![
        patch_case(
            "400: body is not JSON",
            r#"{"name":"#,
            invalid(
                "body",
                "the body is not valid JSON: EOF while parsing a value at line 1 column 8",
            ),
        ),
        patch_case(
            "400: body is an array",
            "[]",
            invalid("body", "the body must be a JSON object"),
        ),
        patch_case(
            "400: body is a string",
            r#""name""#,
            invalid("body", "the body must be a JSON object"),
        ),
        patch_case(
            "400: body is null",
            "null",
            invalid("body", "the body must be a JSON object"),
        ),
        patch_case(
            "400: no body",
            "",
            invalid("body", "a JSON object body is required"),
        ),
        patch_case(
            "400: description cannot be edited",
            r#"{"description":"new"}"#,
            invalid(
                "body.description",
                "description is not a field this operation accepts",
            ),
        ),
        patch_case(
            "400: name with a tab",
            r#"{"name":"bad\tname"}"#,
            invalid(
                "body.name",
                "name contains a character that is not allowed: U+0009",
            ),
        ),
        patch_case(
            "400: name is a domain",
            r#"{"name":"example.com"}"#,
            invalid(
                "body.name",
                "name must not contain a link, domain name or IP address",
            ),
        ),
        patch_case(
            "400: name is empty",
            r#"{"name":""}"#,
            invalid("body.name", "name must not be empty"),
        ),
        patch_case(
            "400: name is null",
            r#"{"name":null}"#,
            invalid("body.name", "name must be a string"),
        ),
        patch_case(
            "400: visibility outside the enum",
            r#"{"visibility":"public"}"#,
            invalid(
                "body.visibility",
                "visibility must be one of: restricted, workspace_edit, workspace_view",
            ),
        ),
        patch_case(
            "400: visibility in another case",
            r#"{"visibility":"Restricted"}"#,
            invalid(
                "body.visibility",
                "visibility must be one of: restricted, workspace_edit, workspace_view",
            ),
        ),
        patch_case(
            "400: every bad field is named, in body order",
            r#"{"name":7,"visibility":true}"#,
            json!({
                "type": "invalid_request", "title": "Invalid request", "status": 400,
                "detail": "validation failed",
                "errors": [
                    {"message": "name must be a string", "location": "body.name"},
                    {"message": "visibility must be a string", "location": "body.visibility"},
                ],
                "props": null,
            }),
        ),
        patch_case(
            "400: body over 1 MiB (3 MiB)",
            &oversized,
            invalid(
                "body",
                "the body could not be read or is larger than 1048576 bytes",
            ),
        ),
        Case {
            key: Some(ENTERPRISE_READONLY),
            ..patch_case(
                "scope is checked before an oversized body is read",
                &oversized,
                insufficient_scope(&["projects:write"]),
            )
        },
        Case {
            headers: vec![h("Content-Type", "text/plain")],
            ..patch_case(
                "400: body sent as text/plain",
                r#"{"name":"ok"}"#,
                invalid(
                    "header.Content-Type",
                    "the body must be sent as application/json",
                ),
            )
        },
    ]
}

fn pipeline_cases() -> Vec<Case> {
    let accept = |name, value: &str| {
        before_selection(get_case(name, vec![h("Accept", value)], not_acceptable()))
    };
    vec![
        accept("406: html only", "text/html"),
        accept(
            "406: several, none JSON",
            "text/html, application/xml;q=0.9",
        ),
        accept("406: JSON refused with q=0", "application/json;q=0"),
        accept("406: anything refused with q=0", "*/*; q=0"),
        Case {
            key: Some("vtg_nope"),
            ..accept("Accept is checked before the credential", "text/html")
        },
        Case {
            headers: vec![h("Accept", "text/html"), h("Service-Version", "2026-9-11")],
            ..accept("Accept is checked before the version", "text/html")
        },
        Case {
            setup: Setup::Deadline,
            ..get_case(
                "503: the deadline expires",
                vec![],
                error(
                    503,
                    "request_timeout",
                    "Request timeout",
                    Some(
                        "the processing deadline expired; a mutation may still complete, so check the resource before retrying",
                    ),
                    Value::Null,
                ),
            )
        },
        Case {
            setup: Setup::Always429,
            ..get_case(
                "429: rate limited (injected)",
                vec![],
                error(
                    429,
                    "rate_limited",
                    "Rate limit exceeded",
                    Some("retry after 1 s"),
                    Value::Null,
                ),
            )
        },
        Case {
            path: "/v1/nothing-here",
            ..get_case(
                "404: unknown route, after auth",
                vec![],
                error(
                    404,
                    "not_found",
                    "Not found",
                    Some("no operation has this path; every path starts with /v1"),
                    Value::Null,
                ),
            )
        },
        Case {
            path: "/v2/projects/prj_70256702db4f",
            ..get_case(
                "404: another major version",
                vec![],
                error(
                    404,
                    "not_found",
                    "Not found",
                    Some("no operation has this path; every path starts with /v1"),
                    Value::Null,
                ),
            )
        },
        before_rate_limit(Case {
            path: "/v1/nothing-here",
            key: None,
            ..get_case(
                "401: unknown route without a credential",
                vec![],
                unauthorized(
                    "send an API key in the Service-API-Key header or as Authorization: Bearer <key>",
                ),
            )
        }),
        Case {
            method: Method::PUT,
            ..get_case(
                "405: a known path with another method",
                vec![],
                error(
                    405,
                    "method_not_allowed",
                    "Method not allowed",
                    Some("this path exists, but not with this method"),
                    Value::Null,
                ),
            )
        },
    ]
}

#[tokio::test]
async fn every_error_row_answers_with_the_envelope_and_headers() {
    let cases: Vec<Case> = [
        version_cases(),
        credential_cases(),
        gate_cases(),
        body_cases(),
        pipeline_cases(),
    ]
    .into_iter()
    .flatten()
    .collect();
    let demo = server(Setup::Demo).await;
    let mut request_ids = std::collections::HashSet::new();
    for case in &cases {
        let fresh;
        let base = if case.setup == Setup::Demo {
            demo.base_url()
        } else {
            fresh = server(case.setup).await;
            fresh.base_url()
        };
        let mut request = call(case.method.clone(), &base, case.path);
        if let Some(key) = case.key {
            request = request.key(key);
        }
        for (name, value) in &case.headers {
            request = request.header(name, value.clone());
        }
        if let Some(body) = &case.body {
            request = request.raw(body.clone());
        }
        let reply = request.send().await;
        let name = case.name;
        assert_eq!(
            reply.status,
            case.expect["status"].as_u64().unwrap() as u16,
            "{name}: {}",
            reply.text
        );
        assert_eq!(reply.error(), case.expect, "{name}");
        assert!(
            request_ids.insert(reply.header("x-request-id").unwrap().to_owned()),
            "{name}: request ids are unique"
        );
        let expected_version = case.version_echoed.then_some("2026-09-11");
        assert_eq!(
            reply.header("service-version"),
            expected_version,
            "{name}: Service-Version"
        );
        assert_eq!(reply.header("service-beta"), None, "{name}: Service-Beta");
        for rate_header in [
            "x-ratelimit-limit",
            "x-ratelimit-remaining",
            "x-ratelimit-reset",
        ] {
            assert_eq!(
                reply.header(rate_header).is_some(),
                case.rate_headers,
                "{name}: {rate_header}"
            );
        }
        let www_authenticate = reply.header("www-authenticate");
        if reply.status == 401 {
            assert_eq!(www_authenticate, Some("Bearer realm=\"api\""), "{name}");
        } else {
            assert_eq!(www_authenticate, None, "{name}");
        }
        let retry_after = reply.header("retry-after");
        if reply.status == 429 {
            assert_eq!(retry_after, Some("1"), "{name}");
        } else {
            assert_eq!(retry_after, None, "{name}");
        }
    }
}

/// Header forms the contract accepts, each answered 200 with the echoes it implies.
#[tokio::test]
async fn accepted_header_forms_succeed_and_echo_the_selection() {
    type Row = (
        &'static str,
        Vec<(&'static str, &'static str)>,
        Option<&'static str>,
    );
    let bearer = format!("Bearer {ENTERPRISE_ADMIN}");
    let lower_bearer = format!("bearer {ENTERPRISE_ADMIN}");
    let key_rows: Vec<(&str, &str, String)> = vec![
        (
            "Service-API-Key",
            "Service-API-Key",
            ENTERPRISE_ADMIN.to_owned(),
        ),
        ("Authorization: Bearer", "Authorization", bearer),
        (
            "Authorization: bearer, any case",
            "Authorization",
            lower_bearer,
        ),
    ];
    let rows: Vec<Row> = vec![
        ("no optional header", vec![], None),
        (
            "Accept: application/json",
            vec![("Accept", "application/json")],
            None,
        ),
        ("Accept: */*", vec![("Accept", "*/*")], None),
        (
            "Accept: application/json, */*",
            vec![("Accept", "application/json, */*")],
            None,
        ),
        (
            "Accept: JSON among others",
            vec![("Accept", "text/html, application/json;q=0.5")],
            None,
        ),
        (
            "Accept: JSON with a charset",
            vec![("Accept", "application/json; charset=utf-8")],
            None,
        ),
        (
            "Accept: application/*",
            vec![("Accept", "application/*")],
            None,
        ),
        (
            "Service-Version pinned",
            vec![("Service-Version", "2026-09-11")],
            None,
        ),
        (
            "one beta",
            vec![("Service-Beta", "widgets-2026-10-01")],
            Some("widgets-2026-10-01"),
        ),
        (
            "two compatible betas",
            vec![("Service-Beta", "widgets-2026-10-01, gadgets-2026-10-01")],
            Some("widgets-2026-10-01,gadgets-2026-10-01"),
        ),
        (
            "a beta repeated",
            vec![("Service-Beta", "widgets-2026-10-01,widgets-2026-10-01")],
            Some("widgets-2026-10-01"),
        ),
    ];
    let (server, _clock) = server_with(|config| {
        let mut catalog = beta_catalog();
        // Make gadgets usable on the supported version for the two-beta row.
        catalog.betas[3].supported_versions = vec!["2026-09-11".into()];
        config.versions = catalog;
    })
    .await;
    let base = server.base_url();
    for (key_form, key_header, key_value) in &key_rows {
        for (name, headers, beta_echo) in &rows {
            let mut request =
                call(Method::GET, &base, ACME_PROJECT).header(key_header, key_value.clone());
            for (header, value) in headers {
                request = request.header(header, *value);
            }
            let reply = request.send().await;
            let name = format!("{key_form} / {name}");
            assert_eq!(reply.status, 200, "{name}: {}", reply.text);
            assert_eq!(reply.json()["id"], "prj_70256702db4f", "{name}");
            assert_eq!(
                reply.header("content-type"),
                Some("application/json"),
                "{name}"
            );
            assert!(
                reply
                    .header("x-request-id")
                    .is_some_and(|id| !id.is_empty()),
                "{name}"
            );
            assert_eq!(
                reply.header("service-version"),
                Some("2026-09-11"),
                "{name}"
            );
            assert_eq!(reply.header("service-beta"), *beta_echo, "{name}");
            assert_eq!(reply.header("x-ratelimit-limit"), Some("120"), "{name}");
        }
    }
    // Errors after selection echo the selection too.
    let reply = call(Method::GET, &base, "/v1/projects/prj_missing")
        .key(ENTERPRISE_ADMIN)
        .header("Service-Beta", "widgets-2026-11-01")
        .send()
        .await;
    assert_eq!(reply.status, 404);
    assert_eq!(reply.header("service-version"), Some("2026-09-11"));
    assert_eq!(reply.header("service-beta"), Some("widgets-2026-11-01"));
}
