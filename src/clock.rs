//! An injectable wall clock, so tests move time instead of sleeping.

use std::sync::{Arc, Mutex};

use time::OffsetDateTime;

/// The source of "now" for the server and the TUI.
#[derive(Clone, Debug, Default)]
pub struct Clock {
    manual: Option<Arc<Mutex<OffsetDateTime>>>,
}

impl Clock {
    /// The system clock.
    pub fn system() -> Self {
        Self { manual: None }
    }

    /// A clock that stands still at `start` until advanced.
    pub fn manual(start: OffsetDateTime) -> Self {
        Self {
            manual: Some(Arc::new(Mutex::new(start))),
        }
    }

    /// The current time in UTC, truncated to whole milliseconds.
    pub fn now(&self) -> OffsetDateTime {
        let now = match &self.manual {
            Some(cell) => *cell.lock().unwrap_or_else(|poisoned| poisoned.into_inner()),
            None => OffsetDateTime::now_utc(),
        };
        now.replace_nanosecond(now.nanosecond() / 1_000_000 * 1_000_000)
            .unwrap_or(now)
    }

    /// Moves a manual clock forward; the system clock ignores it.
    pub fn advance(&self, by: time::Duration) {
        if let Some(cell) = &self.manual {
            let mut now = cell.lock().unwrap_or_else(|poisoned| poisoned.into_inner());
            *now += by;
        }
    }

    /// Sets a manual clock; the system clock ignores it.
    pub fn set(&self, to: OffsetDateTime) {
        if let Some(cell) = &self.manual {
            *cell.lock().unwrap_or_else(|poisoned| poisoned.into_inner()) = to;
        }
    }

    /// Whether this clock is driven by hand.
    pub fn is_manual(&self) -> bool {
        self.manual.is_some()
    }
}

/// A small deterministic generator (SplitMix64). Used where the same seed must give
/// the same data on every build and platform, which no external RNG promises.
#[derive(Clone, Debug)]
pub struct SplitMix64(u64);

impl SplitMix64 {
    pub fn new(seed: u64) -> Self {
        Self(seed)
    }

    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        mix64(self.0)
    }

    /// A value in `0..bound` (`bound` > 0).
    pub fn below(&mut self, bound: u64) -> u64 {
        if bound == 0 {
            return 0;
        }
        self.next_u64() % bound
    }

    /// A float in `[0, 1)`.
    pub fn unit(&mut self) -> f64 {
        (self.next_u64() >> 11) as f64 / (1u64 << 53) as f64
    }

    /// True with probability `p`.
    pub fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    /// One element of a non-empty slice.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }
}

/// The SplitMix64 finaliser: a good 64-bit hash of one word.
pub fn mix64(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A stable 64-bit hash of a string (FNV-1a folded through `mix64`).
pub fn hash_str(text: &str) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in text.bytes() {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    mix64(hash)
}
