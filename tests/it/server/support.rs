//! Request and assertion helpers of the core server suite.

use std::fmt;

use reqwest::Method;
use reqwest::header::HeaderMap;
use serde::Deserialize;
use serde::de::{IgnoredAny, MapAccess, Visitor};
use serde_json::Value;

use crate::common::http;

/// The fields of every error body, in the contract's order.
pub const ERROR_FIELDS: [&str; 7] = [
    "type",
    "title",
    "status",
    "request_id",
    "detail",
    "errors",
    "props",
];

/// One HTTP answer, read whole.
#[derive(Debug)]
pub struct Reply {
    pub status: u16,
    pub headers: HeaderMap,
    pub text: String,
}

impl Reply {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(|v| v.to_str().unwrap())
    }

    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text)
            .unwrap_or_else(|err| panic!("body is not JSON ({err}): {:?}", self.text))
    }

    /// The error envelope, checked for the contract's shape (every field, in
    /// order; `request_id` equal to `X-Request-Id`), without `request_id`.
    pub fn error(&self) -> Value {
        assert_eq!(
            self.header("content-type"),
            Some("application/json"),
            "{}",
            self.text
        );
        assert_eq!(top_level_keys(&self.text), ERROR_FIELDS, "{}", self.text);
        let mut body = self.json();
        let request_id = body["request_id"].as_str().expect("request_id is a string");
        assert_eq!(Some(request_id), self.header("x-request-id"));
        assert_eq!(body["status"], u64::from(self.status), "{}", self.text);
        body.as_object_mut().unwrap().remove("request_id");
        body
    }
}

/// A request to the server at `base`.
pub struct Call {
    method: Method,
    url: String,
    headers: Vec<(String, String)>,
    body: Option<String>,
}

pub fn call(method: Method, base: &str, path: &str) -> Call {
    Call {
        method,
        url: format!("{base}{path}"),
        headers: Vec::new(),
        body: None,
    }
}

impl Call {
    /// Adds a header; calling twice with one name sends it twice.
    pub fn header(mut self, name: &str, value: impl Into<String>) -> Self {
        self.headers.push((name.to_owned(), value.into()));
        self
    }

    pub fn key(self, key: &str) -> Self {
        self.header("Service-API-Key", key)
    }

    /// A JSON body, sent as `application/json`.
    pub fn json(self, body: impl Into<String>) -> Self {
        self.header("Content-Type", "application/json").raw(body)
    }

    /// A body without a content type.
    pub fn raw(mut self, body: impl Into<String>) -> Self {
        self.body = Some(body.into());
        self
    }

    pub async fn send(self) -> Reply {
        let mut request = http().request(self.method, &self.url);
        for (name, value) in self.headers {
            request = request.header(name, value);
        }
        if let Some(body) = self.body {
            request = request.body(body);
        }
        let response = request.send().await.expect("request is answered");
        let status = response.status().as_u16();
        let headers = response.headers().clone();
        let text = response.text().await.expect("body is read");
        Reply {
            status,
            headers,
            text,
        }
    }
}

pub async fn get(base: &str, path: &str, key: &str) -> Reply {
    call(Method::GET, base, path).key(key).send().await
}

/// The keys of a JSON object, in the order they were written.
pub fn top_level_keys(text: &str) -> Vec<String> {
    struct Keys(Vec<String>);
    struct KeysVisitor;
    impl<'de> Visitor<'de> for KeysVisitor {
        type Value = Keys;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("a JSON object")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Keys, A::Error> {
            let mut keys = Vec::new();
            while let Some(key) = map.next_key::<String>()? {
                map.next_value::<IgnoredAny>()?;
                keys.push(key);
            }
            Ok(Keys(keys))
        }
    }
    impl<'de> Deserialize<'de> for Keys {
        fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_map(KeysVisitor)
        }
    }
    serde_json::from_str::<Keys>(text)
        .unwrap_or_else(|err| panic!("not a JSON object ({err}): {text:?}"))
        .0
}
