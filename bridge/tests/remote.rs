//! Driving a session from another machine. `zellij-mcp serve --http`: the
//! official Python SDK's streamable HTTP client (two at once) lists the tools
//! and reads a pane; no token or a wrong one is a 401, a foreign Host or
//! Origin a 403. SSH stdio: the bridge started through a shell with the few
//! variables `ssh host zellij-mcp` gives it.

mod common;

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::Duration;

use common::*;
use serde_json::{json, Value};
use zellij_mcp_harness::{workspace_root, Mcp, Session};

/// `zellij-mcp serve --http 127.0.0.1:0` on the session, and where it listens.
struct Server {
    child: Child,
    addr: SocketAddr,
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn serve(s: &Session, token_file: &std::path::Path) -> Server {
    let mut child = Command::new(bridge())
        .args(["serve", "--http", "127.0.0.1:0", "--token-file"])
        .arg(token_file)
        .arg("--zellij")
        .arg(s.sandbox().zellij_path())
        .envs(s.sandbox().env())
        .env_remove("ZELLIJ")
        .env_remove("ZELLIJ_SESSION_NAME")
        .env_remove("ZELLIJ_PANE_ID")
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .spawn()
        .expect("start zellij-mcp serve");
    let stdout = child.stdout.take().unwrap();
    let mut lines = BufReader::new(stdout).lines();
    let serving = lines
        .find_map(|line| {
            let line = line.ok()?;
            let rest = line.split("http://").nth(1)?;
            rest.strip_suffix("/mcp").map(str::to_owned)
        })
        .expect("the server says where it listens");
    // Keep draining what it prints.
    std::thread::spawn(move || lines.for_each(drop));
    Server {
        child,
        addr: serving.parse().unwrap(),
    }
}

/// The status of an `initialize` POST with these extra header lines.
fn status(addr: SocketAddr, headers: &str) -> u16 {
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}"#;
    let has_host = headers.to_ascii_lowercase().contains("host:");
    let host = match has_host {
        true => String::new(),
        false => format!("Host: {addr}\r\n"),
    };
    let request = format!(
        "POST /mcp HTTP/1.1\r\n{host}{headers}Content-Type: application/json\r\n\
         Accept: application/json, text/event-stream\r\nContent-Length: {}\r\n\
         Connection: close\r\n\r\n{body}",
        body.len()
    );
    let mut stream = TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(Duration::from_secs(10)))
        .unwrap();
    stream.write_all(request.as_bytes()).unwrap();
    let mut first = [0u8; 12];
    stream.read_exact(&mut first).unwrap();
    let line = String::from_utf8_lossy(&first);
    line[9..12].parse().unwrap_or_else(|_| panic!("{line}"))
}

fn python_http_client(s: &Session, url: &str, token: &str) -> Command {
    let python = workspace_root().join("target/mcp-clients/venv/bin/python");
    assert!(python.exists(), "run `make test-deps`");
    let mut command = Command::new(python);
    command
        .arg(workspace_root().join("bridge/tests/clients/http_client.py"))
        .args([url, token])
        .envs(s.sandbox().env());
    command
}

#[test]
fn the_http_server_serves_two_clients_and_refuses_without_the_token_or_from_a_foreign_host() {
    let s = session("http");
    let token = "a-token-for-the-test";
    let token_file = s.sandbox().work().join("token");
    std::fs::write(&token_file, format!("{token}\n")).unwrap();
    let server = serve(&s, &token_file);
    let url = format!("http://{}/mcp", server.addr);

    let clients: Vec<_> = (0..2)
        .map(|_| {
            python_http_client(&s, &url, token)
                .stdout(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    let terminals: Vec<Value> = s
        .zellij_panes()
        .into_iter()
        .filter(|p| p["is_plugin"] == false)
        .map(|p| json!(format!("terminal_{}", p["id"])))
        .collect();
    for client in clients {
        let out = client.wait_with_output().unwrap();
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{text}");
        let seen: Value =
            serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("{e}: {text}"));
        assert_eq!(seen["tools"].as_array().unwrap().len(), 22, "{seen}");
        assert_eq!(
            seen["panes"],
            json!(terminals),
            "as Zellij lists them: {seen}"
        );
        assert_eq!(seen["screen_pane"], seen["panes"][0]);
    }

    let bearer = format!("Authorization: Bearer {token}\r\n");
    assert_eq!(status(server.addr, ""), 401, "no token");
    assert_eq!(status(server.addr, "Authorization: Bearer wrong\r\n"), 401);
    assert_eq!(
        status(server.addr, &format!("Host: evil.example\r\n{bearer}")),
        403
    );
    let origin = format!("Origin: http://evil.example\r\n{bearer}");
    assert_eq!(status(server.addr, &origin), 403);
    assert_eq!(status(server.addr, &bearer), 200, "with the token");
}

#[test]
fn a_bridge_started_over_ssh_stdio_reaches_the_session() {
    let s = session("ssh");
    // What `ssh host zellij-mcp` starts: the login shell running the command,
    // with little more than HOME, PATH, USER and SHELL.
    let mut cmd = tokio::process::Command::new("sh");
    cmd.arg("-c")
        .arg(format!(
            "exec '{}' --zellij '{}'",
            bridge().display(),
            s.sandbox().zellij_path().display()
        ))
        .env_clear()
        .env("PATH", std::env::var_os("PATH").unwrap_or_default())
        .env("SHELL", "/bin/sh")
        .env("USER", "someone");
    for (key, value) in s.sandbox().env() {
        // The sandbox's own folders stand in for the user's home and
        // Zellij's socket folder.
        if key == "HOME" || key == "ZELLIJ_SOCKET_DIR" {
            cmd.env(key, value);
        }
    }
    let mcp = Mcp::over_command(cmd);
    let listed = mcp.ok("zellij_list_panes", json!({}));
    let pane = listed["panes"][0]["pane_id"].clone();
    assert!(s.zellij_has_pane(pane.as_str().unwrap()), "{listed}");
    let read = mcp.ok("zellij_read", json!({"pane_id": pane}));
    assert_eq!(read["pane_id"], pane);
}
