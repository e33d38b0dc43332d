//! The input document straight into regorus's `Value`: a serde `Serializer`
//! that builds the tree the engine reads, with no JSON text written and
//! parsed back between. The tree is the one `Value::from_json_str` of the
//! document's JSON would give (a test keeps the two equal); the field
//! names, the same few thousand times over, share one string each.

use std::collections::{BTreeMap, HashMap};

use regorus::Value;
use serde::Serialize;
use serde::ser::{self, Impossible};

/// What cannot become a Rego value.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ToValueError(String);

impl ser::Error for ToValueError {
    fn custom<T: std::fmt::Display>(message: T) -> Self {
        Self(message.to_string())
    }
}

/// `value` as the Rego value its JSON would parse to.
pub fn to_value<T: Serialize + ?Sized>(value: &T) -> Result<Value, ToValueError> {
    let mut keys = Keys::default();
    value.serialize(ValueSerializer { keys: &mut keys })
}

/// A struct's field names, each made a Rego string once.
#[derive(Default)]
struct Keys {
    names: HashMap<&'static str, Value>,
}

impl Keys {
    fn get(&mut self, name: &'static str) -> Value {
        self.names
            .entry(name)
            .or_insert_with(|| Value::from(name))
            .clone()
    }
}

struct ValueSerializer<'k> {
    keys: &'k mut Keys,
}

/// A number as serde_json reads it back: a non-negative integer unsigned.
fn integer(value: i64) -> Value {
    match u64::try_from(value) {
        Ok(unsigned) => Value::from(unsigned),
        Err(_) => Value::from(value),
    }
}

/// A float as JSON text carries it: `null` when not finite.
fn float(value: f64) -> Value {
    if value.is_finite() {
        Value::from(value)
    } else {
        Value::Null
    }
}

/// Serializer methods with one body for several scalar kinds.
macro_rules! scalar_methods {
    ($($method:ident: $kind:ty),+ $(,)? => |$v:ident| $body:expr) => {
        $(fn $method(self, $v: $kind) -> Result<Value, ToValueError> {
            $body
        })+
    };
}

impl<'k> ser::Serializer for ValueSerializer<'k> {
    type Ok = Value;
    type Error = ToValueError;
    type SerializeSeq = Seq<'k>;
    type SerializeTuple = Seq<'k>;
    type SerializeTupleStruct = Seq<'k>;
    type SerializeTupleVariant = Variant<Seq<'k>>;
    type SerializeMap = Map<'k>;
    type SerializeStruct = Map<'k>;
    type SerializeStructVariant = Variant<Map<'k>>;

    scalar_methods! {
        serialize_bool: bool, serialize_i128: i128, serialize_u64: u64, serialize_u128: u128
            => |v| Ok(Value::from(v))
    }
    scalar_methods! {
        serialize_i8: i8, serialize_i16: i16, serialize_i32: i32
            => |v| Ok(integer(v.into()))
    }
    fn serialize_i64(self, v: i64) -> Result<Value, ToValueError> {
        Ok(integer(v))
    }
    scalar_methods! {
        serialize_u8: u8, serialize_u16: u16, serialize_u32: u32
            => |v| Ok(Value::from(u64::from(v)))
    }
    fn serialize_f32(self, v: f32) -> Result<Value, ToValueError> {
        Ok(float(v.into()))
    }
    fn serialize_f64(self, v: f64) -> Result<Value, ToValueError> {
        Ok(float(v))
    }
    fn serialize_char(self, v: char) -> Result<Value, ToValueError> {
        Ok(Value::from(v.to_string()))
    }
    fn serialize_str(self, v: &str) -> Result<Value, ToValueError> {
        Ok(Value::from(v))
    }
    fn serialize_bytes(self, v: &[u8]) -> Result<Value, ToValueError> {
        Ok(Value::from(
            v.iter()
                .map(|&byte| Value::from(u64::from(byte)))
                .collect::<Vec<_>>(),
        ))
    }
    fn serialize_none(self) -> Result<Value, ToValueError> {
        Ok(Value::Null)
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Value, ToValueError> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Value, ToValueError> {
        Ok(Value::Null)
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<Value, ToValueError> {
        Ok(Value::Null)
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<Value, ToValueError> {
        Ok(self.keys.get(variant))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<Value, ToValueError> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        value: &T,
    ) -> Result<Value, ToValueError> {
        let key = self.keys.get(variant);
        let inner = value.serialize(ValueSerializer { keys: self.keys })?;
        Ok(self::variant(key, inner))
    }
    fn serialize_seq(self, len: Option<usize>) -> Result<Seq<'k>, ToValueError> {
        Ok(Seq {
            keys: self.keys,
            items: Vec::with_capacity(len.unwrap_or(0)),
        })
    }
    fn serialize_tuple(self, len: usize) -> Result<Seq<'k>, ToValueError> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        len: usize,
    ) -> Result<Seq<'k>, ToValueError> {
        self.serialize_seq(Some(len))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Variant<Seq<'k>>, ToValueError> {
        let key = self.keys.get(variant);
        Ok(Variant {
            key,
            inner: self.serialize_seq(Some(len))?,
        })
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Map<'k>, ToValueError> {
        Ok(Map {
            keys: self.keys,
            fields: BTreeMap::new(),
            pending: None,
        })
    }
    fn serialize_struct(self, _name: &'static str, len: usize) -> Result<Map<'k>, ToValueError> {
        self.serialize_map(Some(len))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
        len: usize,
    ) -> Result<Variant<Map<'k>>, ToValueError> {
        let key = self.keys.get(variant);
        Ok(Variant {
            key,
            inner: self.serialize_map(Some(len))?,
        })
    }
}

struct Seq<'k> {
    keys: &'k mut Keys,
    items: Vec<Value>,
}

impl Seq<'_> {
    fn push<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), ToValueError> {
        let item = value.serialize(ValueSerializer {
            keys: &mut *self.keys,
        })?;
        self.items.push(item);
        Ok(())
    }
}

/// A sequence, a tuple and a tuple struct are one array; serde names the
/// method that adds an item differently for each.
macro_rules! array_impls {
    ($($kind:ident::$add:ident),+) => {$(
        impl ser::$kind for Seq<'_> {
            type Ok = Value;
            type Error = ToValueError;
            fn $add<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), ToValueError> {
                self.push(value)
            }
            fn end(self) -> Result<Value, ToValueError> {
                Ok(Value::from(self.items))
            }
        }
    )+};
}

array_impls!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field
);

struct Map<'k> {
    keys: &'k mut Keys,
    fields: BTreeMap<Value, Value>,
    /// A map's key, until its value comes.
    pending: Option<Value>,
}

impl Map<'_> {
    fn insert<T: Serialize + ?Sized>(&mut self, key: Value, value: &T) -> Result<(), ToValueError> {
        let value = value.serialize(ValueSerializer {
            keys: &mut *self.keys,
        })?;
        self.fields.insert(key, value);
        Ok(())
    }

    /// A struct's field, its name's string shared.
    fn field<T: Serialize + ?Sized>(
        &mut self,
        name: &'static str,
        value: &T,
    ) -> Result<(), ToValueError> {
        let key = self.keys.get(name);
        self.insert(key, value)
    }
}

impl ser::SerializeMap for Map<'_> {
    type Ok = Value;
    type Error = ToValueError;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), ToValueError> {
        self.pending = Some(key.serialize(KeySerializer)?);
        Ok(())
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), ToValueError> {
        let key = self
            .pending
            .take()
            .ok_or_else(|| ToValueError("a map's value before its key".into()))?;
        self.insert(key, value)
    }
    fn end(self) -> Result<Value, ToValueError> {
        Ok(Value::from(self.fields))
    }
}

impl ser::SerializeStruct for Map<'_> {
    type Ok = Value;
    type Error = ToValueError;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        name: &'static str,
        value: &T,
    ) -> Result<(), ToValueError> {
        self.field(name, value)
    }
    fn end(self) -> Result<Value, ToValueError> {
        Ok(Value::from(self.fields))
    }
}

/// An enum's variant with content: `{"variant": content}`, as JSON writes it.
struct Variant<Inner> {
    key: Value,
    inner: Inner,
}

fn variant(key: Value, inner: Value) -> Value {
    Value::from(BTreeMap::from([(key, inner)]))
}

impl ser::SerializeTupleVariant for Variant<Seq<'_>> {
    type Ok = Value;
    type Error = ToValueError;
    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), ToValueError> {
        self.inner.push(value)
    }
    fn end(self) -> Result<Value, ToValueError> {
        Ok(variant(self.key, Value::from(self.inner.items)))
    }
}

impl ser::SerializeStructVariant for Variant<Map<'_>> {
    type Ok = Value;
    type Error = ToValueError;
    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        name: &'static str,
        value: &T,
    ) -> Result<(), ToValueError> {
        self.inner.field(name, value)
    }
    fn end(self) -> Result<Value, ToValueError> {
        Ok(variant(self.key, Value::from(self.inner.fields)))
    }
}

/// A map's key: JSON keeps only text keys, and writes a number key as text.
struct KeySerializer;

fn not_a_key(kind: &str) -> ToValueError {
    ToValueError(format!("a map's key must be text, not {kind}"))
}

impl ser::Serializer for KeySerializer {
    type Ok = Value;
    type Error = ToValueError;
    type SerializeSeq = Impossible<Value, ToValueError>;
    type SerializeTuple = Impossible<Value, ToValueError>;
    type SerializeTupleStruct = Impossible<Value, ToValueError>;
    type SerializeTupleVariant = Impossible<Value, ToValueError>;
    type SerializeMap = Impossible<Value, ToValueError>;
    type SerializeStruct = Impossible<Value, ToValueError>;
    type SerializeStructVariant = Impossible<Value, ToValueError>;

    // A number (or a boolean, a character) as JSON writes a key: its text.
    scalar_methods! {
        serialize_bool: bool, serialize_char: char,
        serialize_i8: i8, serialize_i16: i16, serialize_i32: i32, serialize_i64: i64,
        serialize_u8: u8, serialize_u16: u16, serialize_u32: u32, serialize_u64: u64
            => |v| Ok(Value::from(v.to_string()))
    }
    scalar_methods! {
        serialize_f32: f32, serialize_f64: f64 => |_v| Err(not_a_key("a float"))
    }
    fn serialize_str(self, v: &str) -> Result<Value, ToValueError> {
        Ok(Value::from(v))
    }
    fn serialize_bytes(self, _v: &[u8]) -> Result<Value, ToValueError> {
        Err(not_a_key("bytes"))
    }
    fn serialize_none(self) -> Result<Value, ToValueError> {
        Err(not_a_key("null"))
    }
    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<Value, ToValueError> {
        value.serialize(self)
    }
    fn serialize_unit(self) -> Result<Value, ToValueError> {
        Err(not_a_key("null"))
    }
    fn serialize_unit_struct(self, _name: &'static str) -> Result<Value, ToValueError> {
        Err(not_a_key("null"))
    }
    fn serialize_unit_variant(
        self,
        _name: &'static str,
        _index: u32,
        variant: &'static str,
    ) -> Result<Value, ToValueError> {
        Ok(Value::from(variant))
    }
    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        value: &T,
    ) -> Result<Value, ToValueError> {
        value.serialize(self)
    }
    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _value: &T,
    ) -> Result<Value, ToValueError> {
        Err(not_a_key("an enum with content"))
    }
    fn serialize_seq(self, _len: Option<usize>) -> Result<Self::SerializeSeq, ToValueError> {
        Err(not_a_key("an array"))
    }
    fn serialize_tuple(self, _len: usize) -> Result<Self::SerializeTuple, ToValueError> {
        Err(not_a_key("an array"))
    }
    fn serialize_tuple_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleStruct, ToValueError> {
        Err(not_a_key("an array"))
    }
    fn serialize_tuple_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeTupleVariant, ToValueError> {
        Err(not_a_key("an enum with content"))
    }
    fn serialize_map(self, _len: Option<usize>) -> Result<Self::SerializeMap, ToValueError> {
        Err(not_a_key("an object"))
    }
    fn serialize_struct(
        self,
        _name: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStruct, ToValueError> {
        Err(not_a_key("an object"))
    }
    fn serialize_struct_variant(
        self,
        _name: &'static str,
        _index: u32,
        _variant: &'static str,
        _len: usize,
    ) -> Result<Self::SerializeStructVariant, ToValueError> {
        Err(not_a_key("an enum with content"))
    }
}

#[cfg(test)]
mod tests;
