//! Injected faults (`--faults`), reproducible from a seed.
//!
//! Syntax: comma-separated `name=value` pairs, e.g.
//! `429=0.1,503=0.05,reset=0.01,latency=20..300ms,timeout-after-commit=0.2,seed=7`.
//! Probabilities are per request, from 0 to 1. Request number `n` draws its faults
//! from `seed` and `n` alone, so the same seed and the same request order give the
//! same faults.

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crate::hash::mix64;
use crate::rng::SplitMix64;

#[derive(Debug, Default)]
pub struct Faults {
    pub rate_limited: f64,
    pub unavailable: f64,
    pub reset: f64,
    pub latency: Option<(u64, u64)>,
    pub timeout_after_commit: f64,
    pub seed: u64,
    counter: AtomicU64,
}

impl Clone for Faults {
    fn clone(&self) -> Self {
        Self {
            counter: AtomicU64::new(self.counter.load(Ordering::Relaxed)),
            latency: self.latency,
            ..*self
        }
    }
}

/// What happens to one request.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Decision {
    pub rate_limited: bool,
    pub unavailable: bool,
    pub reset: bool,
    pub latency: Duration,
    pub timeout_after_commit: bool,
}

impl Faults {
    pub fn none() -> Self {
        Self::default()
    }

    pub fn is_active(&self) -> bool {
        self.rate_limited > 0.0
            || self.unavailable > 0.0
            || self.reset > 0.0
            || self.latency.is_some()
            || self.timeout_after_commit > 0.0
    }

    /// The faults of the next request.
    pub fn next(&self) -> Decision {
        if !self.is_active() {
            return Decision::default();
        }
        let n = self.counter.fetch_add(1, Ordering::Relaxed);
        let mut rng = SplitMix64::new(mix64(self.seed ^ mix64(n.wrapping_add(1))));
        // Draw every value on every request, so one probability does not shift the others.
        let draws = [rng.unit(), rng.unit(), rng.unit(), rng.unit()];
        let latency = self.latency.map_or(Duration::ZERO, |(lo, hi)| {
            // Saturating: `0..u64::MAX ms` is a legal (if silly) range.
            Duration::from_millis(lo + rng.below((hi - lo).saturating_add(1)))
        });
        Decision {
            rate_limited: draws[0] < self.rate_limited,
            unavailable: draws[1] < self.unavailable,
            reset: draws[2] < self.reset,
            latency,
            timeout_after_commit: draws[3] < self.timeout_after_commit,
        }
    }
}

impl std::str::FromStr for Faults {
    type Err = String;

    fn from_str(spec: &str) -> Result<Self, Self::Err> {
        let mut faults = Faults::default();
        let mut seen: Vec<&str> = Vec::new();
        for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
            let (name, value) = part
                .split_once('=')
                .ok_or_else(|| format!("fault {part:?} is not name=value"))?;
            // A repeated name is a typo more often than not: say so, don't pick one.
            if seen.contains(&name) {
                return Err(format!("fault {name} is given twice"));
            }
            seen.push(name);
            let probability = || -> Result<f64, String> {
                let p: f64 = value
                    .parse()
                    .map_err(|_| format!("fault {name}: {value:?} is not a number"))?;
                if (0.0..=1.0).contains(&p) {
                    Ok(p)
                } else {
                    Err(format!(
                        "fault {name}: probability {p} is not between 0 and 1"
                    ))
                }
            };
            match name {
                "429" => faults.rate_limited = probability()?,
                "503" => faults.unavailable = probability()?,
                "reset" => faults.reset = probability()?,
                "timeout-after-commit" => faults.timeout_after_commit = probability()?,
                "seed" => {
                    faults.seed = value
                        .parse()
                        .map_err(|_| format!("fault seed {value:?} is not a whole number"))?
                }
                "latency" => faults.latency = Some(parse_latency(value)?),
                other => {
                    return Err(format!(
                        "unknown fault {other:?}; known: 429, 503, reset, latency, timeout-after-commit, seed"
                    ));
                }
            }
        }
        Ok(faults)
    }
}

/// `20..300ms`, or `50ms` for a fixed latency.
fn parse_latency(value: &str) -> Result<(u64, u64), String> {
    let digits = value
        .strip_suffix("ms")
        .ok_or_else(|| format!("latency {value:?} must end in ms, e.g. 20..300ms"))?;
    let bad = || format!("latency {value:?} is not N..Mms or Nms");
    let (lo, hi) = match digits.split_once("..") {
        Some((lo, hi)) => (
            lo.parse().map_err(|_| bad())?,
            hi.parse().map_err(|_| bad())?,
        ),
        None => {
            let fixed = digits.parse().map_err(|_| bad())?;
            (fixed, fixed)
        }
    };
    if lo > hi {
        return Err(format!(
            "latency {value:?}: the lower bound is above the upper"
        ));
    }
    Ok((lo, hi))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn same_seed_same_faults() {
        let spec = "429=0.3,503=0.2,reset=0.1,latency=5..50ms,timeout-after-commit=0.5,seed=42";
        let a: Faults = spec.parse().unwrap();
        let b: Faults = spec.parse().unwrap();
        let run_a: Vec<Decision> = (0..200).map(|_| a.next()).collect();
        let run_b: Vec<Decision> = (0..200).map(|_| b.next()).collect();
        assert_eq!(run_a, run_b);
        let limited = run_a.iter().filter(|d| d.rate_limited).count();
        assert!((30..90).contains(&limited), "{limited} of 200 at p=0.3");
        let c: Faults = spec.replace("seed=42", "seed=43").parse().unwrap();
        let run_c: Vec<Decision> = (0..200).map(|_| c.next()).collect();
        assert_ne!(run_a, run_c);
    }

    #[test]
    fn rejects_bad_specs() {
        for bad in [
            "429",
            "429=2",
            "latency=5",
            "latency=9..3ms",
            "boom=0.1",
            "seed=x",
        ] {
            assert!(bad.parse::<Faults>().is_err(), "{bad}");
        }
    }
}
