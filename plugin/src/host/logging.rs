//! The plugin's lines in Zellij's log. Zellij writes whatever a plugin
//! prints to stderr into its log, a line at a time; the `log_level` key of
//! the plugin's configuration (`error`, `warn`, `info`, `debug`; `warn` when
//! absent) says how much. At `debug` each request gets one line, and each
//! error reply another.

use log::{LevelFilter, Log, Metadata, Record};

/// What the plugin logs when the layout does not say.
const DEFAULT_LEVEL: LevelFilter = LevelFilter::Warn;

struct Stderr;

impl Log for Stderr {
    fn enabled(&self, metadata: &Metadata) -> bool {
        metadata.level() <= log::max_level()
    }

    fn log(&self, record: &Record) {
        if self.enabled(record.metadata()) {
            eprintln!("zellij-mcp {}: {}", record.level(), record.args());
        }
    }

    fn flush(&self) {}
}

static STDERR: Stderr = Stderr;

/// Sends the `log` macros to Zellij's log at the configured level.
pub fn start(configured: Option<&str>) {
    let level = level_of(configured);
    // Only the first call in a process installs the logger; the level is
    // set on every call.
    let _ = log::set_logger(&STDERR);
    log::set_max_level(level);
    if let Some(name) = configured.filter(|name| name.parse::<LevelFilter>().is_err()) {
        log::warn!("log_level {name:?} is not error, warn, info or debug; using {level}");
    }
}

fn level_of(configured: Option<&str>) -> LevelFilter {
    configured
        .and_then(|name| name.parse().ok())
        .unwrap_or(DEFAULT_LEVEL)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_level_comes_from_the_configuration_or_is_warn() {
        assert_eq!(level_of(Some("debug")), LevelFilter::Debug);
        assert_eq!(level_of(Some("INFO")), LevelFilter::Info);
        assert_eq!(level_of(Some("loud")), LevelFilter::Warn);
        assert_eq!(level_of(None), LevelFilter::Warn);
    }
}
