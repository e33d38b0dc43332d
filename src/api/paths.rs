//! The operations' paths, each id one percent-encoded segment.

use percent_encoding::{AsciiSet, NON_ALPHANUMERIC, utf8_percent_encode};

use super::error::{ApiError, ConfigError};

/// Everything but RFC 3986's unreserved characters is encoded, `/` included.
const SEGMENT: &AsciiSet = &NON_ALPHANUMERIC
    .remove(b'-')
    .remove(b'.')
    .remove(b'_')
    .remove(b'~');

pub const INVENTORY: &str = "/security-center/insights/projects";

pub fn project(project_id: &str, rest: &str) -> Result<String, ApiError> {
    Ok(format!(
        "/v1/projects/{}{rest}",
        segment("project_id", project_id)?
    ))
}

pub fn workspace(workspace_id: &str, rest: &str) -> Result<String, ApiError> {
    Ok(format!(
        "/v1/workspaces/{}{rest}",
        segment("workspace_id", workspace_id)?
    ))
}

pub fn deployment(project_id: &str, deployment_id: &str) -> Result<String, ApiError> {
    project(
        project_id,
        &format!("/publish/{}", segment("deployment_id", deployment_id)?),
    )
}

pub fn member(workspace_id: &str, user_id: &str) -> Result<String, ApiError> {
    workspace(
        workspace_id,
        &format!("/members/{}", segment("user_id", user_id)?),
    )
}

pub fn scan(project_id: &str, scan_id: &str) -> Result<String, ApiError> {
    project(
        project_id,
        &format!("/security-scans/{}", segment("scan_id", scan_id)?),
    )
}

pub fn scan_findings(project_id: &str, scan_id: &str) -> Result<String, ApiError> {
    Ok(scan(project_id, scan_id)? + "/findings")
}

/// One percent-encoded path segment. `.` and `..` would be resolved away by URL
/// normalisation (even encoded), so they are refused like an empty id.
pub fn segment(name: &'static str, raw: &str) -> Result<String, ApiError> {
    if raw.is_empty() || raw == "." || raw == ".." {
        return Err(ConfigError::InvalidArgument {
            name,
            reason: "must not be empty, \".\" or \"..\"",
        }
        .into());
    }
    Ok(utf8_percent_encode(raw, SEGMENT).to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn path_segments_are_encoded_and_dot_segments_refused() {
        assert_eq!(segment("id", "p_1-a.b~").unwrap(), "p_1-a.b~");
        assert_eq!(
            segment("id", "a/b?c#d é%").unwrap(),
            "a%2Fb%3Fc%23d%20%C3%A9%25"
        );
        for bad in ["", ".", ".."] {
            assert!(matches!(
                segment("project_id", bad),
                Err(ApiError::Config(ConfigError::InvalidArgument {
                    name: "project_id",
                    ..
                }))
            ));
        }
        assert_eq!(
            scan_findings("p 1", "s/2").unwrap(),
            "/v1/projects/p%201/security-scans/s%2F2/findings"
        );
    }
}
