//! What the store keeps instead of an API key, and how a presented key is
//! compared with it.

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

/// SHA-256 of a key: what the store keeps instead of the key.
pub fn hash_key(key: &str) -> [u8; 32] {
    Sha256::digest(key.as_bytes()).into()
}

/// Compares two key hashes without an early exit.
pub fn hashes_match(a: &[u8; 32], b: &[u8; 32]) -> bool {
    a.ct_eq(b).into()
}
