//! A client wired to an in-process server: its sleeper moves the server's
//! manual clock, so backoff and pacing cost no real time, and every event is
//! recorded for assertions.
#![allow(dead_code)]

use std::sync::{Arc, Mutex};
use std::time::Duration;

use vantage::api::{ApiKey, Client, ClientConfig, ClientEvent, ManualSleeper, RetryReason};
use vantage::clock::Clock;
use vantage::server::RunningServer;

pub struct Harness {
    pub client: Client,
    pub sleeper: ManualSleeper,
    events: Arc<Mutex<Vec<ClientEvent>>>,
}

pub fn client(
    server: &RunningServer,
    clock: &Clock,
    key: &str,
    adjust: impl FnOnce(&mut ClientConfig),
) -> Harness {
    client_at(&server.base_url(), clock, key, adjust)
}

pub fn client_at(
    base_url: &str,
    clock: &Clock,
    key: &str,
    adjust: impl FnOnce(&mut ClientConfig),
) -> Harness {
    let sleeper = ManualSleeper::new(clock.clone());
    let events: Arc<Mutex<Vec<ClientEvent>>> = Arc::default();
    let log = events.clone();
    let mut config = ClientConfig::new(base_url, ApiKey::new(key).unwrap());
    config.sleeper = Arc::new(sleeper.clone());
    config.jitter_seed = Some(11);
    config.request_timeout = Duration::from_secs(10);
    config.on_event = Some(Arc::new(move |event: &ClientEvent| {
        log.lock().unwrap().push(event.clone())
    }));
    adjust(&mut config);
    Harness {
        client: Client::new(config).unwrap(),
        sleeper,
        events,
    }
}

/// One attempt, as `RequestDone` reports it.
#[derive(Debug, Clone)]
pub struct Attempt {
    pub call: u64,
    pub attempt: u32,
    pub method: String,
    pub path: String,
    pub status: Option<u16>,
    pub sent_at: time::OffsetDateTime,
    pub retry_after: Option<Duration>,
}

impl Harness {
    pub fn events(&self) -> Vec<ClientEvent> {
        self.events.lock().unwrap().clone()
    }

    pub fn clear_events(&self) {
        self.events.lock().unwrap().clear();
    }

    pub fn attempts(&self) -> Vec<Attempt> {
        self.events()
            .into_iter()
            .filter_map(|event| match event {
                ClientEvent::RequestDone {
                    call,
                    attempt,
                    method,
                    path,
                    status,
                    sent_at,
                    retry_after,
                    ..
                } => Some(Attempt {
                    call,
                    attempt,
                    method,
                    path,
                    status,
                    sent_at,
                    retry_after,
                }),
                _ => None,
            })
            .collect()
    }

    pub fn retries(&self) -> Vec<RetryReason> {
        self.events()
            .into_iter()
            .filter_map(|event| match event {
                ClientEvent::Retrying { reason, .. } => Some(reason),
                _ => None,
            })
            .collect()
    }
}
