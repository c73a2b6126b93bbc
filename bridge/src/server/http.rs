//! `zellij-mcp serve --http ADDR`: the same MCP server over streamable HTTP
//! (rmcp's server), for an agent on another machine.
//!
//! - Every request needs the bearer token: from `--token-file`, else
//!   `ZELLIJ_MCP_TOKEN`, else one generated once and kept (mode 0600) beside
//!   the plugin. Without it, or with another: 401.
//! - rmcp checks `Host` against an allow-list (loopback, and the names given
//!   with `--allowed-host`) and `Origin` against loopback origins: 403. A web
//!   page cannot reach the server through DNS rebinding.
//! - It binds loopback unless `--allow-remote` says otherwise, and then warns
//!   that an SSH tunnel is the safer way.
//! - Each HTTP client gets its own MCP session, and its own share of the
//!   plugin's caps (a session is a client to the plugin).

use std::net::SocketAddr;
use std::os::unix::fs::{OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use axum::extract::Request;
use axum::http::{header, StatusCode};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};

use crate::setup::places::{plugin_dir, shown};
use crate::tools::ZellijMcp;

/// Where MCP is served.
pub const MCP_PATH: &str = "/mcp";

#[derive(Debug, clap::Args)]
pub struct ServeArgs {
    /// Serve MCP over streamable HTTP on this address.
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:7432")]
    pub http: SocketAddr,
    /// A file holding the bearer token clients must send (else
    /// ZELLIJ_MCP_TOKEN, else one generated once and kept beside the plugin).
    #[arg(long)]
    pub token_file: Option<PathBuf>,
    /// Allow an address other than loopback; an SSH tunnel to a loopback
    /// server is the safer way.
    #[arg(long)]
    pub allow_remote: bool,
    /// A host name (or host:port) clients reach the server by, besides
    /// loopback (repeatable).
    #[arg(long)]
    pub allowed_host: Vec<String>,
}

/// Serves until Ctrl-C; `new_server` makes each MCP session's server. The
/// exit code.
pub async fn serve(
    args: ServeArgs,
    new_server: impl Fn() -> std::io::Result<ZellijMcp> + Send + Sync + 'static,
) -> i32 {
    match run(args, new_server).await {
        Ok(()) => 0,
        Err(problem) => {
            eprintln!("zellij-mcp serve: {problem}");
            2
        }
    }
}

async fn run(
    args: ServeArgs,
    new_server: impl Fn() -> std::io::Result<ZellijMcp> + Send + Sync + 'static,
) -> Result<(), String> {
    let remote = !args.http.ip().is_loopback();
    if remote && !args.allow_remote {
        return Err(format!(
            "{} is not a loopback address; pass --allow-remote to serve on it anyway, \
             or keep the server on 127.0.0.1 and reach it through an SSH tunnel \
             (ssh -L {port}:127.0.0.1:{port} HOST)",
            args.http,
            port = args.http.port()
        ));
    }
    if remote {
        eprintln!(
            "zellij-mcp serve: warning: serving on {}; anyone who can reach it and has the \
             token drives your Zellij sessions. An SSH tunnel to a loopback server is safer.",
            args.http
        );
    }
    let token = Arc::new(token(&args)?);
    let mut hosts: Vec<String> = ["localhost", "127.0.0.1", "::1"].map(String::from).into();
    hosts.extend(args.allowed_host.iter().cloned());
    if remote {
        hosts.push(args.http.ip().to_string());
    }
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(hosts)
        .with_allowed_origins(
            ["http://localhost:*", "http://127.0.0.1:*", "http://[::1]:*"].map(String::from),
        );
    let service =
        StreamableHttpService::new(new_server, Arc::new(LocalSessionManager::default()), config);
    let router =
        axum::Router::new()
            .nest_service(MCP_PATH, service)
            .layer(axum::middleware::from_fn(move |request, next| {
                authorized(token.clone(), request, next)
            }));
    let listener = tokio::net::TcpListener::bind(args.http)
        .await
        .map_err(|e| format!("cannot listen on {}: {e}", args.http))?;
    let bound = listener.local_addr().map_err(|e| e.to_string())?;
    println!("zellij-mcp: serving MCP on http://{bound}{MCP_PATH}");
    axum::serve(listener, router)
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
        .map_err(|e| e.to_string())
}

/// 401 unless the request carries the token.
async fn authorized(token: Arc<String>, request: Request, next: Next) -> Response {
    let sent = request
        .headers()
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.strip_prefix("Bearer "));
    match sent {
        Some(sent) if same(sent.as_bytes(), token.as_bytes()) => next.run(request).await,
        _ => (
            StatusCode::UNAUTHORIZED,
            [(header::WWW_AUTHENTICATE, "Bearer")],
            "a bearer token is required (Authorization: Bearer <token>)\n",
        )
            .into_response(),
    }
}

/// Compares in a time that does not depend on where they differ.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

/// The token: `--token-file`, `ZELLIJ_MCP_TOKEN`, or the one kept beside
/// the plugin (made, and printed, the first time).
fn token(args: &ServeArgs) -> Result<String, String> {
    if let Some(file) = &args.token_file {
        let text = std::fs::read_to_string(file)
            .map_err(|e| format!("reading the token in {}: {e}", file.display()))?;
        return non_empty(text.trim(), &file.display().to_string());
    }
    if let Ok(token) = std::env::var("ZELLIJ_MCP_TOKEN") {
        return non_empty(token.trim(), "ZELLIJ_MCP_TOKEN");
    }
    let kept = plugin_dir().join("http-token");
    if let Ok(text) = std::fs::read_to_string(&kept) {
        eprintln!("zellij-mcp serve: the token is in {}", shown(&kept));
        return non_empty(text.trim(), &kept.display().to_string());
    }
    let token = new_token().map_err(|e| format!("making a token: {e}"))?;
    keep(&kept, &token).map_err(|e| format!("keeping the token in {}: {e}", kept.display()))?;
    println!(
        "zellij-mcp: made a token for HTTP clients, kept in {} (mode 0600):\n{token}",
        shown(&kept)
    );
    Ok(token)
}

fn non_empty(token: &str, from: &str) -> Result<String, String> {
    match token.is_empty() {
        true => Err(format!("the token in {from} is empty")),
        false => Ok(token.to_owned()),
    }
}

/// 32 random bytes as hex.
fn new_token() -> std::io::Result<String> {
    crate::server::private::random_hex(32)
}

/// Writes the token where only this user can read it.
fn keep(path: &Path, token: &str) -> std::io::Result<()> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir)?;
    }
    let mut file = std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)?;
    file.set_permissions(std::fs::Permissions::from_mode(0o600))?;
    std::io::Write::write_all(&mut file, format!("{token}\n").as_bytes())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_compare_whole() {
        assert!(same(b"abc", b"abc"));
        assert!(!same(b"abc", b"abd"));
        assert!(!same(b"abc", b"abcd"));
        assert!(!same(b"", b"a"));
    }

    #[test]
    fn a_new_token_is_64_hex_digits() {
        let token = new_token().unwrap();
        assert_eq!(token.len(), 64);
        assert!(token.bytes().all(|b| b.is_ascii_hexdigit()));
        assert_ne!(token, new_token().unwrap());
    }
}
