pub async fn get_scan() -> crate::server::errors::ApiError {
    crate::server::errors::ApiError::internal("not implemented yet")
}
pub async fn list_findings() -> crate::server::errors::ApiError {
    crate::server::errors::ApiError::internal("not implemented yet")
}
