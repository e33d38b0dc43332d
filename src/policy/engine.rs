//! Policies loaded into one in-process Rego engine (`regorus`), and their
//! evaluation over one input document. A policy is one module: its package,
//! its metadata (`__rego_metadata__`), its violations (`deny`) and, when it
//! defines them, the projects it could not judge (`unknown`: a field it
//! reads is absent from the document). What does not compile, lacks
//! metadata or yields a malformed entry is an error naming the file and
//! line, never a silent pass.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::PolicyError;
use super::clock_ext;
use super::input::PolicyInput;

/// How much a violation matters, most first.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Severity {
    Critical,
    High,
    Medium,
    Low,
    Info,
}

impl Severity {
    pub const ALL: [Severity; 5] = [
        Self::Critical,
        Self::High,
        Self::Medium,
        Self::Low,
        Self::Info,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Self::Critical => "critical",
            Self::High => "high",
            Self::Medium => "medium",
            Self::Low => "low",
            Self::Info => "info",
        }
    }

    pub fn parse(raw: &str) -> Option<Self> {
        Self::ALL
            .into_iter()
            .find(|severity| severity.as_str() == raw)
    }

    /// Whether this is `threshold` or worse.
    pub fn at_least(self, threshold: Severity) -> bool {
        self <= threshold
    }
}

/// What a policy says of itself (`__rego_metadata__`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PolicyMeta {
    pub id: String,
    pub title: String,
    pub severity: Severity,
    pub description: String,
    pub remediation: String,
}

/// One loaded policy.
#[derive(Debug, Clone)]
pub struct Policy {
    pub meta: PolicyMeta,
    /// The Rego package (`vantage.pack.stale_scan`).
    pub package: String,
    /// Where it was read: a path, or `builtin:NAME.rego`.
    pub origin: String,
    /// The line of its first `deny` rule (1-based), to name in errors.
    pub deny_line: usize,
    /// The line of its first `unknown` rule, when it has one: only such a
    /// policy is asked which projects it could not judge.
    pub unknown_line: Option<usize>,
}

/// A Rego module's text with where it came from.
#[derive(Debug, Clone)]
pub struct PolicySource {
    pub origin: String,
    pub text: String,
}

/// The rule of a policy that yields entries of one kind.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Rule {
    /// `deny`: the project violates the policy.
    Deny,
    /// `unknown`: the policy could not judge the project (what it reads is
    /// not in the document), so it neither passes nor fails.
    Unknown,
}

impl Rule {
    /// The rule's name in Rego.
    pub fn name(self) -> &'static str {
        match self {
            Self::Deny => "deny",
            Self::Unknown => "unknown",
        }
    }

    /// What one of its entries is called in messages.
    pub fn entry(self) -> &'static str {
        match self {
            Self::Deny => "violation",
            Self::Unknown => "`unknown` entry",
        }
    }
}

/// One entry a policy yielded: a violation (`deny`) or a project it could
/// not judge (`unknown`), both `{"project": ID, "msg": TEXT}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Verdict {
    pub policy_id: String,
    pub project_id: String,
    pub message: String,
    pub rule: Rule,
}

/// The policies, compiled together.
pub struct PolicySet {
    engine: regorus::Engine,
    policies: Vec<Policy>,
}

impl std::fmt::Debug for PolicySet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PolicySet")
            .field("policies", &self.policies)
            .finish_non_exhaustive()
    }
}

/// What the text of a module says of itself before it is compiled.
struct ModuleScan {
    package: String,
    /// The line of its first `deny` rule, of its first `unknown` rule.
    deny_line: Option<usize>,
    unknown_line: Option<usize>,
}

/// Whether a line (its indentation trimmed) opens a rule named `name`.
fn opens_rule(trimmed: &str, name: &str) -> bool {
    trimmed.strip_prefix(name).is_some_and(|rest| {
        !rest.starts_with(|c: char| c.is_alphanumeric() || c == '_' || c == '.')
    })
}

/// The `package` a module declares, and the lines of its first `deny` and
/// first `unknown` rules.
fn scan_module(source: &PolicySource) -> Result<ModuleScan, PolicyError> {
    let mut package = None;
    let mut deny_line = None;
    let mut unknown_line = None;
    for (index, line) in source.text.lines().enumerate() {
        let trimmed = line.trim_start();
        if package.is_none()
            && let Some(rest) = trimmed.strip_prefix("package ")
        {
            let name = rest.split('#').next().unwrap_or("").trim();
            package = Some(name.to_owned());
        }
        if deny_line.is_none() && opens_rule(trimmed, Rule::Deny.name()) {
            deny_line = Some(index + 1);
        }
        if unknown_line.is_none() && opens_rule(trimmed, Rule::Unknown.name()) {
            unknown_line = Some(index + 1);
        }
    }
    let package = package.ok_or_else(|| PolicyError::Invalid {
        origin: source.origin.clone(),
        line: 1,
        reason: "no `package` line".into(),
    })?;
    Ok(ModuleScan {
        package,
        deny_line,
        unknown_line,
    })
}

/// The engine every policy set starts from: Rego v1, strict built-ins, and
/// the time built-ins on the evaluation's own clock, `regex.match` compiling
/// each pattern once.
pub(super) fn new_engine(now_ns: i64) -> Result<regorus::Engine, PolicyError> {
    let mut engine = regorus::Engine::new();
    engine.set_strict_builtin_errors(true);
    clock_ext::install(&mut engine, now_ns)?;
    super::regex_ext::install(&mut engine)?;
    Ok(engine)
}

fn engine_error(origin: &str, error: &dyn std::fmt::Display) -> PolicyError {
    let text = format!("{error:#}");
    // regorus names `file:line:column` in its message.
    let line = text
        .split(&format!("{origin}:"))
        .nth(1)
        .and_then(|rest| rest.split(':').next())
        .and_then(|line| line.trim().parse().ok())
        .unwrap_or(1);
    PolicyError::Invalid {
        origin: origin.to_owned(),
        line,
        reason: text,
    }
}

impl PolicySet {
    /// Compiles `sources`; each must be a policy (a package with `deny` and
    /// `__rego_metadata__`), and no two may share a package or an id.
    /// `now_ns` is what `time.now_ns()` answers.
    pub fn compile(sources: &[PolicySource], now_ns: i64) -> Result<Self, PolicyError> {
        let mut engine = new_engine(now_ns)?;
        let mut scanned = Vec::with_capacity(sources.len());
        let mut packages: BTreeMap<String, String> = BTreeMap::new();
        for source in sources {
            let scan = scan_module(source)?;
            let package = scan.package.clone();
            if let Some(first) = packages.insert(package, source.origin.clone()) {
                return Err(PolicyError::Invalid {
                    origin: source.origin.clone(),
                    line: 1,
                    reason: format!("package {} is also declared by {first}", scan.package),
                });
            }
            engine
                .add_policy(source.origin.clone(), source.text.clone())
                .map_err(|error| engine_error(&source.origin, &error))?;
            scanned.push((source, scan));
        }
        let mut policies = Vec::with_capacity(scanned.len());
        let mut ids: BTreeMap<String, String> = BTreeMap::new();
        for (source, scan) in scanned {
            let ModuleScan {
                package,
                deny_line,
                unknown_line,
            } = scan;
            let Some(deny_line) = deny_line else {
                return Err(PolicyError::Invalid {
                    origin: source.origin.clone(),
                    line: 1,
                    reason: "no `deny` rule: a policy yields its violations as `deny contains {\"project\": …, \"msg\": …} if { … }`".into(),
                });
            };
            if !source.text.contains("__rego_metadata__") {
                return Err(PolicyError::Invalid {
                    origin: source.origin.clone(),
                    line: 1,
                    reason: "no `__rego_metadata__` object (id, title, severity, description, remediation)".into(),
                });
            }
            let raw = engine
                .eval_rule(format!("data.{package}.__rego_metadata__"))
                .map_err(|error| engine_error(&source.origin, &error))?;
            let meta = read_meta(&source.origin, &raw)?;
            if let Some(first) = ids.insert(meta.id.clone(), source.origin.clone()) {
                return Err(PolicyError::Invalid {
                    origin: source.origin.clone(),
                    line: 1,
                    reason: format!("policy id {} is also used by {first}", meta.id),
                });
            }
            policies.push(Policy {
                meta,
                package,
                origin: source.origin.clone(),
                deny_line,
                unknown_line,
            });
        }
        Ok(Self { engine, policies })
    }

    pub fn policies(&self) -> &[Policy] {
        &self.policies
    }

    /// Keeps only the policies of these ids; an unknown id is an error.
    pub fn retain_ids(&mut self, ids: &[String]) -> Result<(), PolicyError> {
        if ids.is_empty() {
            return Ok(());
        }
        for id in ids {
            if !self.policies.iter().any(|policy| &policy.meta.id == id) {
                let known: Vec<&str> = self.policies.iter().map(|p| p.meta.id.as_str()).collect();
                return Err(PolicyError::UnknownPolicy {
                    id: id.clone(),
                    known: known.join(", "),
                });
            }
        }
        self.policies.retain(|policy| ids.contains(&policy.meta.id));
        Ok(())
    }

    /// Every entry of every policy over `input`, by policy (in load order),
    /// then rule (violations first), project id and message. `unknown` is
    /// evaluated only for a policy that defines it, so a pack without it
    /// costs what it did.
    pub fn evaluate(&mut self, input: &PolicyInput) -> Result<Vec<Verdict>, PolicyError> {
        let value = super::rego_value::to_value(input).map_err(|error| PolicyError::Input {
            reason: error.to_string(),
        })?;
        self.engine.set_input(value);
        let mut all = Vec::new();
        for policy in &self.policies {
            for (rule, line) in [
                (Rule::Deny, Some(policy.deny_line)),
                (Rule::Unknown, policy.unknown_line),
            ] {
                let Some(line) = line else { continue };
                let raw = self
                    .engine
                    .eval_rule(format!("data.{}.{}", policy.package, rule.name()))
                    .map_err(|error| engine_error(&policy.origin, &error))?;
                let mut found = read_entries(policy, rule, line, &raw)?;
                found.sort_by(|a, b| (&a.project_id, &a.message).cmp(&(&b.project_id, &b.message)));
                found.dedup();
                all.extend(found);
            }
        }
        Ok(all)
    }
}

fn to_json(value: &regorus::Value) -> Option<Value> {
    if *value == regorus::Value::Undefined {
        return None;
    }
    serde_json::to_value(value).ok()
}

fn read_meta(origin: &str, raw: &regorus::Value) -> Result<PolicyMeta, PolicyError> {
    let invalid = |reason: String| PolicyError::Invalid {
        origin: origin.to_owned(),
        line: 1,
        reason,
    };
    let Some(Value::Object(meta)) = to_json(raw) else {
        return Err(invalid(
            "no `__rego_metadata__` object (id, title, severity, description, remediation)".into(),
        ));
    };
    let text = |key: &str| -> Result<String, PolicyError> {
        match meta.get(key) {
            Some(Value::String(value)) if !value.trim().is_empty() => Ok(value.clone()),
            _ => Err(invalid(format!(
                "`__rego_metadata__.{key}` must be a non-empty string"
            ))),
        }
    };
    let id = text("id")?;
    if !id
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
    {
        return Err(invalid(format!(
            "policy id {id:?}: only letters, digits, _ - and . are allowed"
        )));
    }
    let severity_text = text("severity")?;
    let severity = Severity::parse(&severity_text).ok_or_else(|| {
        invalid(format!(
            "severity {severity_text:?} is not one of critical, high, medium, low, info"
        ))
    })?;
    Ok(PolicyMeta {
        id,
        title: text("title")?,
        severity,
        description: text("description")?,
        remediation: text("remediation")?,
    })
}

/// The members of a rule's set (`deny` or `unknown`) as entries, read off
/// the engine's values (no JSON between); any other shape is an error
/// naming the policy's file and the rule's `line`.
fn read_entries(
    policy: &Policy,
    rule: Rule,
    line: usize,
    raw: &regorus::Value,
) -> Result<Vec<Verdict>, PolicyError> {
    let malformed = |reason: String| PolicyError::Malformed {
        origin: policy.origin.clone(),
        line,
        entry: rule.entry(),
        reason,
    };
    let read = |item: &regorus::Value| {
        let regorus::Value::Object(fields) = item else {
            return Err(malformed(format!(
                "each {} must be an object {{\"project\": …, \"msg\": …}}, not {}",
                rule.entry(),
                kind_of(item)
            )));
        };
        let field = |key: &str| match fields.get(&regorus::Value::from(key)) {
            Some(regorus::Value::String(value)) if !value.is_empty() => Ok(value.to_string()),
            _ => Err(malformed(format!(
                "each {}'s `{key}` must be a non-empty string: {}",
                rule.entry(),
                crate::text::escape_invisible(&json_text(item))
            ))),
        };
        Ok(Verdict {
            policy_id: policy.meta.id.clone(),
            project_id: field("project")?,
            message: field("msg")?,
            rule,
        })
    };
    match raw {
        // Nothing yielded: the rule is undefined.
        regorus::Value::Undefined => Ok(Vec::new()),
        regorus::Value::Set(items) => items.iter().map(read).collect(),
        regorus::Value::Array(items) => items.iter().map(read).collect(),
        other => Err(malformed(format!(
            "`{}` must be a set of objects, not {}",
            rule.name(),
            kind_of(other)
        ))),
    }
}

/// A value as JSON text, for an error message.
fn json_text(value: &regorus::Value) -> String {
    serde_json::to_string(value).unwrap_or_else(|_| format!("{value:?}"))
}

/// A value's kind, as JSON names it.
fn kind_of(value: &regorus::Value) -> &'static str {
    match value {
        regorus::Value::Null => "null",
        regorus::Value::Bool(_) => "a boolean",
        regorus::Value::Number(_) => "a number",
        regorus::Value::String(_) | regorus::Value::Undefined => "a string",
        regorus::Value::Array(_) | regorus::Value::Set(_) => "an array",
        regorus::Value::Object(_) => "an object",
    }
}
