//! Read-side indexes of each workspace (sort orders, filter sets, a text
//! index, serialized items), kept beside the data they index. An index is
//! built on first use and then maintained on write: every change to a project
//! is handed to each index of its workspace, which brings itself up to date
//! (an index that cannot, or that a reader still holds, is dropped and built
//! again on its next use). The store knows nothing of what an index holds:
//! the handlers build and maintain them (see `handlers/inventory/index.rs`).

use std::any::Any;
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

/// Most indexes kept per workspace; past it the workspace starts afresh (a
/// bound on memory for clients that send many different filters).
const MAX_PER_WORKSPACE: usize = 256;

/// An index over the data `D`, kept current on write.
pub trait MaintainedIndex<D>: Any + Send + Sync {
    /// Brings the index up to date after project `project_id` of its
    /// workspace changed in `data` (absent from it: deleted). `false` when it
    /// cannot: the index is then dropped.
    fn project_changed(&mut self, data: &D, project_id: &str) -> bool;
}

type Entry<D> = Arc<dyn MaintainedIndex<D>>;
type Entries<D> = HashMap<String, HashMap<String, Entry<D>>>;

pub struct IndexCache<D> {
    by_workspace: Mutex<Entries<D>>,
}

impl<D> Default for IndexCache<D> {
    fn default() -> Self {
        Self {
            by_workspace: Mutex::default(),
        }
    }
}

impl<D: 'static> IndexCache<D> {
    /// The index `name` of `workspace`, built by `build` when missing. `build`
    /// runs without the lock held (two readers may both build; one is kept).
    pub fn get_or_build<T: MaintainedIndex<D>>(
        &self,
        workspace: &str,
        name: &str,
        build: impl FnOnce() -> T,
    ) -> Arc<T> {
        if let Some(found) = self.get(workspace, name) {
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

    /// The index `name` of `workspace`, if it is built.
    pub fn get<T: MaintainedIndex<D>>(&self, workspace: &str, name: &str) -> Option<Arc<T>> {
        self.lock()
            .get(workspace)
            .and_then(|entries| entries.get(name))
            .and_then(|entry| {
                let any: Arc<dyn Any + Send + Sync> = entry.clone();
                any.downcast::<T>().ok()
            })
    }

    /// Hands a change of project `project_id` in `workspace` to each index of
    /// the workspace. Writers call it with the data already changed.
    pub fn project_changed(&self, workspace: &str, data: &D, project_id: &str) {
        let mut all = self.lock();
        if let Some(entries) = all.get_mut(workspace) {
            entries.retain(|_, entry| {
                Arc::get_mut(entry).is_some_and(|index| index.project_changed(data, project_id))
            });
        }
    }

    /// Drops every index.
    pub fn clear(&self) {
        self.lock().clear();
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Entries<D>> {
        self.by_workspace.lock().unwrap_or_else(|p| p.into_inner())
    }
}

/// A copy of the data starts with no index: they are built again from it.
impl<D> Clone for IndexCache<D> {
    fn clone(&self) -> Self {
        Self::default()
    }
}

impl<D> std::fmt::Debug for IndexCache<D> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let all = self.by_workspace.lock().unwrap_or_else(|p| p.into_inner());
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

    /// The sum of the data's values, kept current; `None` cannot follow a write.
    struct Sum(Option<u32>);

    impl MaintainedIndex<Vec<u32>> for Sum {
        fn project_changed(&mut self, data: &Vec<u32>, _: &str) -> bool {
            self.0 = self.0.map(|_| data.iter().sum());
            self.0.is_some()
        }
    }

    #[test]
    fn builds_once_and_is_maintained_on_write() {
        let cache = IndexCache::default();
        let mut data = vec![1, 2];
        let builds = std::cell::Cell::new(0);
        let sum = |cache: &IndexCache<Vec<u32>>, data: &Vec<u32>| {
            cache.get_or_build("ws", "sum", || {
                builds.set(builds.get() + 1);
                Sum(Some(data.iter().sum()))
            })
        };
        assert_eq!(sum(&cache, &data).0, Some(3));
        data.push(4);
        cache.project_changed("ws", &data, "p");
        assert_eq!(sum(&cache, &data).0, Some(7));
        assert_eq!(builds.get(), 1);
        assert_eq!(sum(&cache.clone(), &data).0, Some(7));
        assert_eq!(builds.get(), 2);
    }

    #[test]
    fn an_index_that_cannot_follow_a_write_is_dropped() {
        let cache = IndexCache::default();
        let built = cache.get_or_build("ws", "n", || Sum(None));
        drop(built);
        cache.project_changed("ws", &vec![5], "p");
        assert_eq!(cache.get_or_build("ws", "n", || Sum(Some(5))).0, Some(5));
        // One a reader still holds is dropped too.
        let held = cache.get_or_build("ws", "n", || Sum(Some(0)));
        cache.project_changed("ws", &vec![6], "p");
        assert_eq!(held.0, Some(5));
        assert_eq!(cache.get_or_build("ws", "n", || Sum(Some(6))).0, Some(6));
    }
}
