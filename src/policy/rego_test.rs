//! Runs a policy's Rego unit tests: every `test_` rule of a test module,
//! evaluated with the policies beside it, passes when it is `true` (as
//! `opa test` counts them).

use super::PolicyError;
use super::engine::{PolicySource, new_engine};

/// One test's result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TestResult {
    /// Where the test is: `FILE:LINE`.
    pub location: String,
    /// `package.test_name`.
    pub name: String,
    pub passed: bool,
    /// Why it failed, when the engine said.
    pub error: Option<String>,
}

/// The `package` and the `test_` rules (name, 1-based line) of a module.
fn tests_of(source: &PolicySource) -> (Option<String>, Vec<(String, usize)>) {
    let mut package = None;
    let mut tests: Vec<(String, usize)> = Vec::new();
    for (index, line) in source.text.lines().enumerate() {
        if package.is_none()
            && let Some(rest) = line.trim_start().strip_prefix("package ")
        {
            package = Some(rest.split('#').next().unwrap_or("").trim().to_owned());
        }
        if line.starts_with("test_") {
            let name: String = line
                .chars()
                .take_while(|c| c.is_alphanumeric() || *c == '_')
                .collect();
            if !tests.iter().any(|(known, _)| *known == name) {
                tests.push((name, index + 1));
            }
        }
    }
    (package, tests)
}

/// Every `test_` rule of `tests`, run with `policies` loaded; `now_ns` is
/// what `time.now_ns()` answers.
pub fn run(
    policies: &[PolicySource],
    tests: &[PolicySource],
    now_ns: i64,
) -> Result<Vec<TestResult>, PolicyError> {
    let mut engine = new_engine(now_ns)?;
    for source in policies.iter().chain(tests) {
        engine
            .add_policy(source.origin.clone(), source.text.clone())
            .map_err(|error| PolicyError::Invalid {
                origin: source.origin.clone(),
                line: 1,
                reason: format!("{error:#}"),
            })?;
    }
    let mut results = Vec::new();
    for source in tests {
        let (Some(package), found) = tests_of(source) else {
            return Err(PolicyError::Invalid {
                origin: source.origin.clone(),
                line: 1,
                reason: "no `package` line".into(),
            });
        };
        for (name, line) in found {
            let outcome = engine.eval_rule(format!("data.{package}.{name}"));
            let (passed, error) = match outcome {
                Ok(value) => (value == regorus::Value::from(true), None),
                Err(error) => (false, Some(format!("{error:#}"))),
            };
            results.push(TestResult {
                location: format!("{}:{line}", source.origin),
                name: format!("{package}.{name}"),
                passed,
                error,
            });
        }
    }
    Ok(results)
}
