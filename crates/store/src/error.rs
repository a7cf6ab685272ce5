use std::path::PathBuf;

/// What went wrong in the store: what, where, and (in the message) how to fix it.
#[derive(Debug, thiserror::Error)]
pub enum StoreError {
    #[error("no data directory: set TOKENJUICE_HOME, XDG_DATA_HOME or HOME")]
    NoHome,

    #[error("cannot {what} {}: {source}", path.display())]
    Io {
        what: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },

    #[error("run history {}: cannot {what}: {source}", path.display())]
    Sqlite {
        what: &'static str,
        path: PathBuf,
        #[source]
        source: rusqlite::Error,
    },

    #[error("run history {} is damaged ({detail}); move it aside (it is set aside automatically on the next recorded run) or delete it to start a new one", path.display())]
    Corrupt { path: PathBuf, detail: String },

    #[error("run history {} was written by a newer tokenjuice (schema {found}, this build reads up to {supported}); upgrade tokenjuice or move the file aside", path.display())]
    NewerSchema {
        path: PathBuf,
        found: i64,
        supported: i64,
    },

    #[error("`{0}` is not an artifact id: ids look like tj_0123456789ab (tj_ and 12 lowercase hex digits); `tokenjuice ls` lists them")]
    BadId(String),

    #[error("no artifact {id} in {}: it was never stored, or retention removed it; `tokenjuice ls` lists what is kept", dir.display())]
    NotFound { id: String, dir: PathBuf },

    #[error("artifact {id} is damaged ({detail}); the bytes before the damage were printed")]
    DamagedArtifact { id: String, detail: String },

    #[error("{origin}: {message}")]
    Config { origin: String, message: String },
}

impl StoreError {
    pub(crate) fn io(what: &'static str, path: impl Into<PathBuf>, source: std::io::Error) -> Self {
        StoreError::Io {
            what,
            path: path.into(),
            source,
        }
    }

    pub(crate) fn sql(
        what: &'static str,
        path: impl Into<PathBuf>,
        source: rusqlite::Error,
    ) -> Self {
        let path = path.into();
        if is_corruption(&source) {
            return StoreError::Corrupt {
                path,
                detail: source.to_string(),
            };
        }
        StoreError::Sqlite { what, path, source }
    }

    /// The database was busy or locked by another writer.
    pub fn is_busy(&self) -> bool {
        matches!(self, StoreError::Sqlite { source, .. } if sqlite_code(source).is_some_and(|c| matches!(c, rusqlite::ErrorCode::DatabaseBusy | rusqlite::ErrorCode::DatabaseLocked)))
    }
}

fn sqlite_code(e: &rusqlite::Error) -> Option<rusqlite::ErrorCode> {
    match e {
        rusqlite::Error::SqliteFailure(f, _) => Some(f.code),
        _ => None,
    }
}

/// The file is not a usable SQLite database (damaged, or something else entirely).
pub(crate) fn is_corruption(e: &rusqlite::Error) -> bool {
    sqlite_code(e).is_some_and(|c| {
        matches!(
            c,
            rusqlite::ErrorCode::DatabaseCorrupt | rusqlite::ErrorCode::NotADatabase
        )
    })
}
