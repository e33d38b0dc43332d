pub async fn realtime() -> crate::server::errors::ApiError {
    crate::server::errors::ApiError::internal("not implemented yet")
}
pub async fn breakdowns() -> crate::server::errors::ApiError {
    crate::server::errors::ApiError::internal("not implemented yet")
}
