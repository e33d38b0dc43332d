//! Steps 3 and 7 to 9 of the order of checks: who is calling, and whether the
//! key's scopes, plan and features allow the operation.

use axum::http::HeaderMap;

use super::auth::{Feature, Plan, Principal, Scope};
use super::errors::HttpError;
use super::key_hash::{hash_key, hashes_match};
use super::ops::Operation;
use super::store::Store;

/// Step 3: the key, its workspace, plan and scopes.
pub fn authenticate(store: &Store, headers: &HeaderMap) -> Result<Principal, HttpError> {
    let presented = presented_credential(headers)?;
    let presented_hash = hash_key(&presented);
    store.read(|data| {
        // Compare against every key, without an early exit.
        let mut found = None;
        for key in &data.keys {
            let mut stored = [0u8; 32];
            if hex::decode_to_slice(&key.key_hash, &mut stored).is_ok()
                && hashes_match(&stored, &presented_hash)
            {
                found = Some(key);
            }
        }
        let key = found.ok_or_else(|| HttpError::unauthorized("the API key is not valid"))?;
        let workspace = data
            .workspaces
            .get(&key.workspace_id)
            .ok_or_else(|| HttpError::unauthorized("the API key's workspace no longer exists"))?;
        Ok(Principal {
            key_id: key.id.clone(),
            workspace_id: workspace.id.clone(),
            plan: workspace.plan,
            features: workspace.features.clone(),
            scopes: key.scopes.clone(),
        })
    })
}

/// Steps 7 to 9: scope, plan, features.
pub fn authorize(principal: &Principal, operation: &Operation) -> Result<(), HttpError> {
    require_scope(principal, operation.scope)?;
    require_plan(principal, operation.plan)?;
    require_features(principal, operation.features)
}

/// 403 `insufficient_scope` unless one acceptable scope is held.
fn require_scope(principal: &Principal, needed: Scope) -> Result<(), HttpError> {
    let acceptable = needed.satisfied_by();
    if acceptable
        .iter()
        .any(|scope| principal.scopes.contains(scope))
    {
        Ok(())
    } else {
        let names: Vec<&str> = acceptable.iter().map(|scope| scope.as_str()).collect();
        Err(HttpError::insufficient_scope(&names))
    }
}

/// 402 `payment_required` with `required_plan` below `needed`.
fn require_plan(principal: &Principal, needed: Plan) -> Result<(), HttpError> {
    if principal.plan >= needed {
        Ok(())
    } else {
        Err(HttpError::plan_required(needed.as_str()))
    }
}

/// 402 `payment_required` with `required_features` when one is missing.
fn require_features(principal: &Principal, needed: &[Feature]) -> Result<(), HttpError> {
    if needed.iter().all(|feature| principal.has_feature(*feature)) {
        Ok(())
    } else {
        let names: Vec<&str> = needed.iter().map(|feature| feature.as_str()).collect();
        Err(HttpError::features_required(&names))
    }
}

/// The presented credential: `Service-API-Key`, else `Authorization: Bearer`.
pub fn presented_credential(headers: &HeaderMap) -> Result<String, HttpError> {
    if let Some(value) = headers.get("service-api-key") {
        return value
            .to_str()
            .ok()
            .map(str::trim)
            .filter(|key| !key.is_empty())
            .map(str::to_owned)
            .ok_or_else(|| {
                HttpError::unauthorized("the Service-API-Key header is empty or not text")
            });
    }
    if let Some(value) = headers.get(axum::http::header::AUTHORIZATION) {
        let text = value.to_str().unwrap_or_default().trim();
        let (scheme, token) = text.split_once(' ').unwrap_or((text, ""));
        if !scheme.eq_ignore_ascii_case("bearer") {
            return Err(HttpError::unauthorized(
                "the Authorization header must use the Bearer scheme",
            ));
        }
        let token = token.trim();
        if token.is_empty() {
            return Err(HttpError::unauthorized("the Bearer token is empty"));
        }
        return Ok(token.to_owned());
    }
    Err(HttpError::unauthorized(
        "send an API key in the Service-API-Key header or as Authorization: Bearer <key>",
    ))
}
