pub async fn list() -> crate::server::errors::ApiError {
    crate::server::errors::ApiError::internal("not implemented yet")
}
