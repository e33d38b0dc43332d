//! The rate-limit budget a walk through pages leaves to the user: the
//! dashboard's [`Reserve`] (one rule, in `api::ratelimit`), for the lists,
//! the bulk actions and the background snapshot.

use crate::api::Reserve;

/// Whether the budget `(remaining, limit)` leaves more than the reserve for
/// what the user does next (an unknown budget is no reason to stop).
pub fn budget_allows(rate: Option<(u32, u32)>) -> bool {
    rate.is_none_or(|(remaining, limit)| Reserve::DASHBOARD.leaves(remaining, limit, 0))
}

/// The requests kept for the user's next action out of a budget of `limit`.
pub fn reserve(limit: u32) -> u32 {
    Reserve::DASHBOARD.kept(limit)
}
