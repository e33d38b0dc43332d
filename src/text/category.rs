//! A character's Unicode general category, as `unicode_general_category`
//! answers it, remembered per thread.
//!
//! Its lookup indexes a `const` table of 50 KB and is small enough to be
//! instantiated in every crate that calls it, at that crate's opt-level. In
//! the tests' unoptimised build each call copied the whole table onto the
//! stack first: 57 % of the 50,000-event dashboard test went to that copy
//! (`perf`). A direct-mapped cache of 256 characters answers a repeated
//! character without it; a release build pays for neither.

use std::cell::RefCell;

use unicode_general_category::{GeneralCategory, get_general_category};

const SLOTS: usize = 256;

thread_local! {
    static KNOWN: RefCell<[Option<(char, GeneralCategory)>; SLOTS]> =
        const { RefCell::new([None; SLOTS]) };
}

/// The general category of `ch`.
pub(crate) fn general_category(ch: char) -> GeneralCategory {
    let slot = ch as usize % SLOTS;
    KNOWN.with(|known| {
        let mut known = known.borrow_mut();
        match known[slot] {
            Some((cached, category)) if cached == ch => category,
            _ => {
                let category = get_general_category(ch);
                known[slot] = Some((ch, category));
                category
            }
        }
    })
}

/// Whether `ch` is a combining mark (nonspacing, enclosing or spacing).
pub(crate) fn is_combining(ch: char) -> bool {
    matches!(
        general_category(ch),
        GeneralCategory::NonspacingMark
            | GeneralCategory::EnclosingMark
            | GeneralCategory::SpacingMark
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn answers_as_the_table_does_when_characters_share_a_slot() {
        // 'a', U+0161, U+0361, ... fall into one slot: each evicts the last.
        let sharing: Vec<char> = (0..64)
            .filter_map(|step| char::from_u32(u32::from('a') + step * SLOTS as u32))
            .collect();
        for _ in 0..2 {
            for &ch in &sharing {
                assert_eq!(general_category(ch), get_general_category(ch), "{ch:?}");
            }
        }
        for ch in ['\u{202e}', '\u{2028}', '\u{0301}', 'Ж', '\u{e0041}', '😀'] {
            assert_eq!(general_category(ch), get_general_category(ch), "{ch:?}");
        }
    }
}
