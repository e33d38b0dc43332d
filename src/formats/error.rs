//! What can go wrong while writing any format.

#[derive(Debug, thiserror::Error)]
pub enum OutputError {
    #[error("cannot write output: {0}")]
    Io(#[from] std::io::Error),
    #[error("cannot encode an item as JSON: {0}")]
    Json(#[from] serde_json::Error),
    #[error("cannot write CSV: {0}")]
    Csv(String),
}

impl OutputError {
    /// The reader went away (`| head`): not worth reporting.
    pub fn is_broken_pipe(&self) -> bool {
        let kind = match self {
            Self::Io(error) => Some(error.kind()),
            Self::Json(error) => error.io_error_kind(),
            Self::Csv(_) => None,
        };
        kind == Some(std::io::ErrorKind::BrokenPipe)
    }
}

impl From<::csv::Error> for OutputError {
    fn from(error: ::csv::Error) -> Self {
        match error.into_kind() {
            ::csv::ErrorKind::Io(error) => Self::Io(error),
            other => Self::Csv(format!("{other:?}")),
        }
    }
}
