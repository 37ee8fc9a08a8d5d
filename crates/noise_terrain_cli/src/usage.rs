//! Usage errors in clap's format (exit code 2), for checks clap cannot make itself.

use clap::CommandFactory;
use clap::error::ErrorKind;

use crate::Failure;

/// A usage error of `kind` with `message`, in clap's format.
pub(crate) fn usage(kind: ErrorKind, message: String) -> clap::Error {
    crate::Cli::command().error(kind, message)
}

/// A usage error about one flag's value.
pub(crate) fn usage_error(flag: &str, message: &str) -> Failure {
    Failure::Usage(usage(ErrorKind::ValueValidation, format!("{flag}: {message}")))
}
