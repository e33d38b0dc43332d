//! The rate-limit budget a walk through pages leaves to the user: one rule
//! for the lists, the bulk actions and the background snapshot.

/// The requests a walk through the pages leaves to the user's next action:
/// a tenth of the budget, at least this many.
const MIN_RESERVE: u32 = 2;

/// Whether the budget `(remaining, limit)` leaves more than the reserve for
/// what the user does next (an unknown budget is no reason to stop).
pub fn budget_allows(rate: Option<(u32, u32)>) -> bool {
    rate.is_none_or(|(remaining, limit)| remaining > reserve(limit))
}

/// The requests kept for the user's next action out of a budget of `limit`.
pub fn reserve(limit: u32) -> u32 {
    (limit / 10).max(MIN_RESERVE)
}
