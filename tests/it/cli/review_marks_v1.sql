-- A history file as vantage wrote it at schema version 1 (before states were
-- documents): one snapshot of two projects and a member, insights as a JSON
-- column, and a mark held by the state row.
CREATE TABLE snapshot (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    workspace_id TEXT NOT NULL,
    taken_at_ms INTEGER NOT NULL,
    project_count INTEGER NOT NULL,
    member_count INTEGER NOT NULL,
    insights TEXT,
    first_page TEXT
);
CREATE INDEX snapshot_by_workspace ON snapshot (workspace_id, id);
CREATE TABLE project_state (
    id INTEGER PRIMARY KEY,
    digest BLOB NOT NULL UNIQUE,
    project_id TEXT NOT NULL,
    name TEXT,
    is_published INTEGER NOT NULL,
    audience TEXT,
    audience_targets TEXT,
    visibility TEXT,
    review_priority TEXT NOT NULL,
    finding_types TEXT NOT NULL,
    pii_open INTEGER,
    connectors TEXT NOT NULL,
    edge_functions TEXT NOT NULL,
    owner TEXT
);
CREATE TABLE snapshot_project (
    snapshot_id INTEGER NOT NULL,
    position INTEGER NOT NULL,
    state_id INTEGER NOT NULL,
    PRIMARY KEY (snapshot_id, position)
) WITHOUT ROWID;
CREATE TABLE member_state (
    id INTEGER PRIMARY KEY,
    digest BLOB NOT NULL UNIQUE,
    user_id TEXT NOT NULL,
    kind TEXT NOT NULL,
    role TEXT,
    name TEXT
);
CREATE TABLE snapshot_member (
    snapshot_id INTEGER NOT NULL,
    position INTEGER NOT NULL,
    state_id INTEGER NOT NULL,
    PRIMARY KEY (snapshot_id, position)
) WITHOUT ROWID;
CREATE TABLE review_mark (
    workspace_id TEXT NOT NULL,
    project_id TEXT NOT NULL,
    marked_at_ms INTEGER NOT NULL,
    note TEXT,
    state_id INTEGER,
    PRIMARY KEY (workspace_id, project_id)
) WITHOUT ROWID;

INSERT INTO snapshot VALUES (1, 'ws_x', 1795435200000, 2, 1,
    '{"as_of":null,"findings":[],"summary":{"total_projects":{"value":2,"delta_30d":0,"delta_window":"30 days"},"externally_published":{"value":0,"delta_30d":0,"delta_window":"30 days"},"workspace_members":{"value":1,"delta_30d":0,"delta_window":"30 days"},"risk":{"needs_review":1,"no_review_needed":0,"review_recommended":0}}}',
    NULL);
INSERT INTO project_state VALUES (7, x'01', 'p1', 'first', 0, NULL, '[]', 'workspace_edit',
    'needs_review', '["inactive_owner"]', 2, '[]', '[]', 'Ada');
INSERT INTO project_state VALUES (9, x'02', 'p2', 'second', 1, 'custom', NULL, 'restricted',
    'unscored', '[]', NULL, '["slack"]', '["hook"]', NULL);
INSERT INTO snapshot_project VALUES (1, 0, 9), (1, 1, 7);
INSERT INTO member_state VALUES (7, x'03', 'u1', 'user', 'owner', 'Ada');
INSERT INTO snapshot_member VALUES (1, 0, 7);
INSERT INTO review_mark VALUES ('ws_x', 'p1', 1795435300000, 'old mark', 7);
PRAGMA user_version = 1;
