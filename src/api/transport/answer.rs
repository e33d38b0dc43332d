//! A 2xx answer, and its body decoded: through the refusals of
//! [`ANSWER_CHECKS`](super::checks::ANSWER_CHECKS) first, then a fast read of
//! its text, then the declaration that names what is wrong.

use bytes::Bytes;
use bytestring::ByteString;
use reqwest::Method;
use reqwest::header::HeaderMap;
use serde::de::DeserializeOwned;

use super::checks::{ANSWER_CHECKS, Check};
use super::failures::body_start;
use crate::api::error::{ApiError, DecodeError};

/// A 2xx answer.
#[derive(Debug)]
pub struct Answer {
    pub status: u16,
    pub headers: HeaderMap,
    pub body: Bytes,
    pub request_id: Option<String>,
    pub method: Method,
    pub path: String,
}

impl Answer {
    /// The body as `T`; a failure names the JSON path, the status and request id.
    pub fn decode<T: DeserializeOwned>(&self) -> Result<T, ApiError> {
        self.decode_with(|text| serde_json::from_str(text).ok())
    }

    /// [`Answer::decode`], the body's text first read by `fast`: what it
    /// reads is the answer, and when it reads nothing, `T`'s declaration
    /// decides and names what is wrong. `fast` must accept nothing that `T`
    /// refuses.
    pub fn decode_with<T: DeserializeOwned>(
        &self,
        fast: impl FnOnce(&ByteString) -> Option<T>,
    ) -> Result<T, ApiError> {
        // The body checks of `checks.rs`; an error envelope is shown, never
        // stored, so only a success's.
        let success = (200..300).contains(&self.status);
        let refusal = ANSWER_CHECKS
            .iter()
            .take_while(|_| success)
            .find_map(|declared| match declared.check {
                Check::Refuse(check) => check(self),
                Check::Notice(_) => None,
            });
        if let Some(refusal) = refusal {
            return Err(ApiError::decode(DecodeError {
                status: self.status,
                request_id: self.request_id.clone(),
                method: self.method.to_string(),
                path: self.path.clone(),
                json_path: refusal.json_path,
                message: refusal.message,
                body_start: body_start(&self.body),
            }));
        }
        // The fast path first, over text checked once (serde_json then skips
        // checking each string); only a failure pays for the JSON path.
        let text = ByteString::try_from(self.body.clone());
        if let Some(value) = text.ok().as_ref().and_then(fast) {
            return Ok(value);
        }
        let mut deserializer = serde_json::Deserializer::from_slice(&self.body);
        serde_path_to_error::deserialize(&mut deserializer).map_err(|error| {
            let json_path = error.path().to_string();
            let message = error.inner().to_string();
            ApiError::decode(DecodeError {
                status: self.status,
                request_id: self.request_id.clone(),
                method: self.method.to_string(),
                path: self.path.clone(),
                json_path,
                message,
                body_start: body_start(&self.body),
            })
        })
    }
}
