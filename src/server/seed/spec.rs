//! `--generate`'s specification.

/// `--generate projects=N,members=M,seed=S`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GenerateSpec {
    pub projects: usize,
    pub members: usize,
    pub seed: u64,
}

impl Default for GenerateSpec {
    fn default() -> Self {
        Self {
            projects: 200,
            members: 60,
            seed: 1,
        }
    }
}

/// As `--generate` takes it, so a printed command gives the same workspace.
impl std::fmt::Display for GenerateSpec {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "projects={},members={},seed={}",
            self.projects, self.members, self.seed
        )
    }
}

impl std::str::FromStr for GenerateSpec {
    type Err = String;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let mut spec = GenerateSpec::default();
        for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (name, value) = part
                .split_once('=')
                .ok_or_else(|| format!("{part:?} is not name=value"))?;
            let number: u64 = value
                .trim()
                .parse()
                .map_err(|_| format!("{name}: {value:?} is not a whole number"))?;
            match name.trim() {
                "projects" => spec.projects = number as usize,
                "members" => spec.members = number as usize,
                "seed" => spec.seed = number,
                other => {
                    return Err(format!(
                        "unknown setting {other:?}; known: projects, members, seed"
                    ));
                }
            }
        }
        if spec.projects > 1_000_000 || spec.members > 1_000_000 {
            return Err("at most 1,000,000 projects and members".into());
        }
        if spec.members == 0 {
            return Err("members must be at least 1 (projects need an owner)".into());
        }
        Ok(spec)
    }
}
