//! What the crates' tests share: property test settings and a plugin's
//! `hello`. Only with the `testing` feature (tests turn it on).

use proptest::prelude::ProptestConfig;

use crate::ops::HelloResult;

/// 10,000 cases per property, or `PROPTEST_CASES`; failures are not
/// written into the source tree.
pub fn property_config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|n| n.parse().ok())
        .unwrap_or(10_000);
    ProptestConfig {
        cases,
        failure_persistence: None,
        ..ProptestConfig::default()
    }
}

/// A plugin's `hello`: ready, and reporting `plugin_url`, when it has one.
pub fn hello(plugin_url: Option<&str>) -> HelloResult {
    HelloResult {
        plugin_version: env!("CARGO_PKG_VERSION").into(),
        protocol: crate::PROTOCOL_VERSION,
        plugin_id: 2,
        client_id: 1,
        zellij_pid: 1,
        plugin_url: plugin_url.map(Into::into),
        configuration: Default::default(),
        ready: plugin_url.is_some(),
        instances: vec![1],
        build_id: "0123456789abcdef".into(),
        wait_looks: 0,
        programs_digest: String::new(),
    }
}
