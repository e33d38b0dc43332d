//! The client's connection: the service on loopback is reached directly,
//! never through a proxy the environment names, and the key never reaches one.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpListener;

use crate::cli::page_walks::KEY;
use crate::cli::support::Cli;
use crate::common::hostile_service::{self, Trick};

/// A fake HTTP proxy on loopback: counts connections and whether a key came.
async fn fake_proxy() -> (String, Arc<AtomicU64>, Arc<AtomicU64>) {
    let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
    let address = listener.local_addr().unwrap();
    let (connections, keys) = (Arc::new(AtomicU64::new(0)), Arc::new(AtomicU64::new(0)));
    let (counted, keyed) = (connections.clone(), keys.clone());
    tokio::spawn(async move {
        while let Ok((mut socket, _)) = listener.accept().await {
            counted.fetch_add(1, Ordering::SeqCst);
            let mut head = vec![0; 8192];
            let read = socket.read(&mut head).await.unwrap_or(0);
            if String::from_utf8_lossy(&head[..read]).contains(KEY) {
                keyed.fetch_add(1, Ordering::SeqCst);
            }
            let _ = socket
                .write_all(b"HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\n\r\n")
                .await;
        }
    });
    (format!("http://{address}"), connections, keys)
}

#[tokio::test]
async fn loopback_never_goes_through_a_proxy_from_the_environment() {
    let service = hostile_service::start(Trick::Honest).await;
    let (proxy, connections, keys) = fake_proxy().await;
    for base in [
        service.base_url.clone(),
        service.base_url.replace("127.0.0.1", "localhost"),
    ] {
        let cli = Cli::new(base.clone(), "ws_1", KEY);
        let env = [
            ("http_proxy", proxy.as_str()),
            ("HTTP_PROXY", proxy.as_str()),
            ("all_proxy", proxy.as_str()),
            ("ALL_PROXY", proxy.as_str()),
            ("no_proxy", ""),
            ("NO_PROXY", ""),
        ];
        let run = cli.run_env(&["inventory", "--format", "jsonl"], &env).await;
        assert_eq!(run.code, 0, "{base}: {}", run.stderr);
        assert_eq!(run.stdout.lines().count(), 3, "{base}");
    }
    assert_eq!(connections.load(Ordering::SeqCst), 0, "the proxy was used");
    assert_eq!(keys.load(Ordering::SeqCst), 0, "the key reached the proxy");
}
