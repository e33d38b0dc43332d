//! What several benches start from: a generated workspace served in-process
//! on `127.0.0.1:0`, with a rate limit no bench reaches (a bench measures
//! vantage, not waiting for the budget), read with the read-only key.

use vantage::api::{ApiKey, Client, ClientConfig};
use vantage::clock::Clock;
use vantage::server::ratelimit::RateLimit;
use vantage::server::seed::{self, GenerateSpec};
use vantage::server::store::records::Fixture;
use vantage::server::{RunningServer, ServerConfig, start};

pub struct Served {
    pub server: RunningServer,
    pub workspace: String,
    /// The enterprise workspace's read-only key (for a bench's own requests).
    #[allow(dead_code)] // each bench includes this module and takes what it needs
    pub key: String,
    pub client: Client,
}

/// `projects` projects and `members` memberships (seed 1, anchored today),
/// served; `inspect` sees the fixture before the server takes it.
pub async fn serve_generated(
    projects: usize,
    members: usize,
    inspect: impl FnOnce(&Fixture),
) -> Served {
    let fixture = seed::generate(
        GenerateSpec {
            projects,
            members,
            seed: 1,
        },
        seed::today_anchor(Clock::system().now()),
    );
    inspect(&fixture);
    let workspace = fixture.workspaces[0].id.clone();
    let key = fixture
        .keys
        .iter()
        .find(|k| k.label == "enterprise-readonly")
        .map(|k| k.key.clone())
        .expect("generated keys");
    let mut config = ServerConfig::local(fixture);
    config.rate_limit = RateLimit {
        limit: 1_000_000,
        window: time::Duration::seconds(60),
    };
    let server = start(config).await.expect("server starts");
    let client = Client::new(ClientConfig::new(
        server.base_url(),
        ApiKey::new(key.clone()).expect("key"),
    ))
    .expect("client");
    Served {
        server,
        workspace,
        key,
        client,
    }
}
