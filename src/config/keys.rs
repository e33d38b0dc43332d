//! A table of the config file declared once: each key's name, type, default,
//! bound and doc line on one line of a [`declare_keys!`], which makes the
//! struct serde reads (unknown keys refused and named, each value checked by
//! its type), its defaults, the list of keys (README's table is tested
//! against it) and the values as set (what `vantage doctor` prints).
//! ARCHITECTURE.md: how to add a config key.

use std::fmt;
use std::marker::PhantomData;

use serde::Deserialize;
use serde::de::{self, DeserializeOwned, Deserializer, Visitor};

/// What the file's reader, README's table and `doctor` know of one key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DeclaredKey {
    pub name: &'static str,
    /// The values it takes, with its bound: "a whole number from 1 to 3600".
    pub kind: String,
    /// The default, as the file spells a value (without TOML's quotes);
    /// `None`: unset unless the file sets it.
    pub default: Option<String>,
    /// What it does, in one line.
    pub doc: String,
}

/// A type a declared key may have: it says what it takes and shows a value.
pub trait KeyValue: DeserializeOwned + Clone + fmt::Debug {
    /// The values it takes, with its bound, for README and errors.
    fn kind() -> String;
    /// A value as the file spells it, without TOML's quotes; `None`: unset.
    fn shown(&self) -> Option<String>;
}

impl KeyValue for bool {
    fn kind() -> String {
        "`true` or `false`".into()
    }

    fn shown(&self) -> Option<String> {
        Some(self.to_string())
    }
}

impl KeyValue for String {
    fn kind() -> String {
        "text".into()
    }

    fn shown(&self) -> Option<String> {
        Some(self.clone())
    }
}

impl KeyValue for std::path::PathBuf {
    fn kind() -> String {
        "a path".into()
    }

    fn shown(&self) -> Option<String> {
        Some(self.display().to_string())
    }
}

/// A key with no default: absent, it is unset.
impl<T: KeyValue> KeyValue for Option<T> {
    fn kind() -> String {
        T::kind()
    }

    fn shown(&self) -> Option<String> {
        self.as_ref().and_then(T::shown)
    }
}

/// A whole number from `MIN` to `MAX`, refused outside them as it is read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bounded<const MIN: u64, const MAX: u64>(u64);

impl<const MIN: u64, const MAX: u64> Bounded<MIN, MAX> {
    pub const MIN: u64 = MIN;
    pub const MAX: u64 = MAX;

    /// `value` when it is within the bound.
    pub fn new(value: u64) -> Option<Self> {
        (MIN..=MAX).contains(&value).then_some(Self(value))
    }

    /// A declared default: a value out of its own bound is a programming
    /// error, which the declarations' test finds.
    pub fn fixed(value: u64) -> Self {
        match Self::new(value) {
            Some(bounded) => bounded,
            None => panic!("the default {value} is outside {MIN} to {MAX}"),
        }
    }

    pub fn get(self) -> u64 {
        self.0
    }
}

impl<const MIN: u64, const MAX: u64> KeyValue for Bounded<MIN, MAX> {
    fn kind() -> String {
        format!("a whole number from {MIN} to {MAX}")
    }

    fn shown(&self) -> Option<String> {
        Some(self.0.to_string())
    }
}

impl<'de, const MIN: u64, const MAX: u64> Deserialize<'de> for Bounded<MIN, MAX> {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Within<const MIN: u64, const MAX: u64>(PhantomData<()>);

        impl<const MIN: u64, const MAX: u64> Visitor<'_> for Within<MIN, MAX> {
            type Value = Bounded<MIN, MAX>;

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&Bounded::<MIN, MAX>::kind())
            }

            fn visit_i64<E: de::Error>(self, value: i64) -> Result<Self::Value, E> {
                u64::try_from(value)
                    .ok()
                    .and_then(Bounded::new)
                    .ok_or_else(|| E::invalid_value(de::Unexpected::Signed(value), &self))
            }

            fn visit_u64<E: de::Error>(self, value: u64) -> Result<Self::Value, E> {
                Bounded::new(value)
                    .ok_or_else(|| E::invalid_value(de::Unexpected::Unsigned(value), &self))
            }
        }

        deserializer.deserialize_any(Within::<MIN, MAX>(PhantomData))
    }
}

/// Declares a table of the config file, one key a line:
///
/// ```text
/// declare_keys! {
///     /// The `[tui]` table.
///     pub struct TuiTable {
///         /// the dashboard's colours; `NO_COLOR` always wins
///         theme: ThemeName = ThemeName::Dark,
///     }
/// }
/// ```
///
/// Each key's type implements [`KeyValue`] (its bound is in the type, e.g.
/// [`Bounded`]); its doc comment is README's line for it.
macro_rules! declare_keys {
    (
        $(#[$meta:meta])*
        $vis:vis struct $table:ident {
            $(
                $(#[doc = $doc:literal])+
                $key:ident : $type:ty = $default:expr,
            )+
        }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, PartialEq, ::serde::Deserialize)]
        #[serde(default, deny_unknown_fields, expecting = "a table")]
        $vis struct $table {
            $(
                $(#[doc = $doc])+
                pub $key: $type,
            )+
        }

        impl Default for $table {
            fn default() -> Self {
                Self { $($key: $default,)+ }
            }
        }

        impl $table {
            /// Every key, in the table's order, with its type, default and doc line.
            pub fn keys() -> Vec<$crate::config::keys::DeclaredKey> {
                let defaults = Self::default();
                vec![$(
                    $crate::config::keys::DeclaredKey {
                        name: stringify!($key),
                        kind: <$type as $crate::config::keys::KeyValue>::kind(),
                        default: $crate::config::keys::KeyValue::shown(&defaults.$key),
                        doc: concat!($($doc),+).trim().to_owned(),
                    },
                )+]
            }

            /// Each key with its value here, as the file spells it (`None`: unset).
            pub fn values(&self) -> Vec<(&'static str, Option<String>)> {
                vec![$(
                    (stringify!($key), $crate::config::keys::KeyValue::shown(&self.$key)),
                )+]
            }
        }
    };
}
pub(crate) use declare_keys;

#[cfg(test)]
mod tests {
    use super::*;

    declare_keys! {
        /// A table for the tests.
        struct Sample {
            /// whether it is on
            on: bool = false,
            /// how many,
            /// two lines
            count: Bounded<1, 9> = Bounded::fixed(3),
            /// where, if anywhere
            place: Option<String> = None,
        }
    }

    fn read(text: &str) -> Result<Sample, String> {
        toml::from_str(text).map_err(|error| error.message().to_owned())
    }

    #[test]
    fn a_declaration_gives_its_keys_defaults_and_values() {
        let keys = Sample::keys();
        assert_eq!(keys[0].name, "on");
        assert_eq!(keys[0].kind, "`true` or `false`");
        assert_eq!(keys[1].default.as_deref(), Some("3"));
        assert_eq!(keys[2].default, None);
        assert_eq!(keys[2].kind, "text");
        assert_eq!(keys[1].kind, "a whole number from 1 to 9");
        assert_eq!(keys[1].doc, "how many, two lines");
        let read = read("count = 9\n").unwrap();
        let shown = |value: &str| Some(value.to_owned());
        assert_eq!(
            read.values(),
            [
                ("on", shown("false")),
                ("count", shown("9")),
                ("place", None)
            ]
        );
        let placed = self::read("place = \"here\"\n").unwrap();
        assert_eq!(placed.values()[2], ("place", shown("here")));
        assert_eq!(self::read("").unwrap(), Sample::default());
    }

    #[test]
    fn a_value_out_of_its_bound_or_an_unknown_key_is_refused() {
        for bad in ["0", "10", "-1", "2.5", "\"3\""] {
            let refused = read(&format!("count = {bad}\n")).unwrap_err();
            assert!(
                refused.contains("expected a whole number from 1 to 9"),
                "{bad}: {refused}"
            );
        }
        let refused = read("cont = 3\n").unwrap_err();
        assert_eq!(
            refused,
            "unknown field `cont`, expected one of `on`, `count`, `place`"
        );
    }
}
