//! Read-side indexes of each workspace (sort orders, filter sets, a text
//! index), kept beside the data they index. An index is built on first use
//! and dropped when a write touches its workspace, so a read never sees one
//! older than the data. The store knows nothing of what an index holds: the
//! handlers build them (see `handlers/inventory/index.rs`).

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Most indexes kept per workspace; past it the workspace starts afresh (a
/// bound on memory for clients that send many different filters).
const MAX_PER_WORKSPACE: usize = 256;

type Entry = Arc<dyn Any + Send + Sync>;

#[derive(Default)]
pub struct IndexCache {
    by_workspace: Mutex<HashMap<String, HashMap<String, Entry>>>,
}

impl IndexCache {
    /// The index `name` of `workspace`, built by `build` when missing. `build`
    /// runs without the lock held (two readers may both build; one is kept).
    pub fn get_or_build<T: Any + Send + Sync>(
        &self,
        workspace: &str,
        name: &str,
        build: impl FnOnce() -> T,
    ) -> Arc<T> {
        if let Some(found) = self
            .lock()
            .get(workspace)
            .and_then(|entries| entries.get(name))
            .and_then(|entry| Arc::clone(entry).downcast::<T>().ok())
        {
            return found;
        }
        let built = Arc::new(build());
        let mut all = self.lock();
        let entries = all.entry(workspace.to_owned()).or_default();
        if entries.len() >= MAX_PER_WORKSPACE {
            entries.clear();
        }
        entries.insert(name.to_owned(), built.clone());
        built
    }

    /// Drops the indexes of `workspace`: a write changed its data.
    pub fn invalidate(&self, workspace: &str) {
        self.lock().remove(workspace);
    }

    /// Drops every index.
    pub fn clear(&self) {
        self.lock().clear();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<String, HashMap<String, Entry>>> {
        self.by_workspace.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A copy of the data starts with no index: they are rebuilt from it.
impl Clone for IndexCache {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl std::fmt::Debug for IndexCache {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let all = self.lock();
        f.debug_map()
            .entries(
                all.iter()
                    .map(|(workspace, entries)| (workspace, entries.len())),
            )
            .finish()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn builds_once_and_rebuilds_after_a_write() {
        let cache = IndexCache::default();
        let mut builds = 0;
        let first = cache.get_or_build("ws", "n", || {
            builds += 1;
            7_u32
        });
        let again = cache.get_or_build("ws", "n", || {
            builds += 1;
            8_u32
        });
        assert_eq!((*first, *again, builds), (7, 7, 1));
        cache.invalidate("ws");
        assert_eq!(*cache.get_or_build("ws", "n", || 9_u32), 9);
        assert_eq!(*cache.clone().get_or_build("ws", "n", || 10_u32), 10);
    }
}
