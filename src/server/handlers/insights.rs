pub async fn get() -> crate::server::errors::ApiError {
    crate::server::errors::ApiError::internal("not implemented yet")
}
