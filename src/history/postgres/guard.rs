//! The database's guards of its append-only tables, as the schema's steps
//! install them: PL/pgSQL functions that the tables' triggers call, refusing
//! a row that claims another role than the one logged in, and every change
//! but the one a table allows. A leaf: `schema.rs` (steps 2 and 4) and
//! `waivers.rs` (step 6) both write theirs with it.

use crate::history::marks::KEPT_COLUMNS;

/// The guard function `name` of a table whose rows record the role that
/// wrote them (`db_role`): an insert only as `session_user` (`refusal`
/// names both, in that order), then whatever `update` lets through (a
/// PL/pgSQL block that returns NEW, or nothing), and nothing else
/// (`append_only` names `TG_OP`).
fn append_only(name: &str, refusal: &str, update: &str, append_only: &str) -> String {
    format!(
        "
CREATE OR REPLACE FUNCTION {name}() RETURNS trigger LANGUAGE plpgsql AS $guard$
BEGIN
    IF TG_OP = 'INSERT' THEN
        IF NEW.db_role IS DISTINCT FROM session_user::text THEN
            RAISE EXCEPTION '{refusal}',
                session_user, coalesce(NEW.db_role, 'no role')
                USING ERRCODE = 'insufficient_privilege';
        END IF;
        RETURN NEW;
    END IF;{update}
    RAISE EXCEPTION '{append_only}', TG_OP
        USING ERRCODE = 'insufficient_privilege';
END
$guard$;
"
    )
}

/// The review log's guard, `vantage_review_guard`: besides an insert as the
/// role logged in, an update only of an entry for which `changeable` holds
/// (a mark without a reviewed state, which a later snapshot gives one), and
/// then with none of [`KEPT_COLUMNS`], its role and `added` changed.
pub(super) fn review_guard(changeable: &str, added: &[&str]) -> String {
    let row = |which: &str| {
        KEPT_COLUMNS
            .iter()
            .chain(&["db_role"])
            .chain(added)
            .map(|column| format!("{which}.{column}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let update = format!(
        "
    IF TG_OP = 'UPDATE' THEN
        IF {changeable}
           AND ({}) IS NOT DISTINCT FROM ({}) THEN
            RETURN NEW;
        END IF;
    END IF;",
        row("NEW"),
        row("OLD"),
    );
    append_only(
        "vantage_review_guard",
        "the review log records the role that writes it: % cannot write an entry as %",
        &update,
        "the review log is append-only: % refused",
    )
}

/// The waiver table's guard (schema 4 and 5; schema 6 moves waivers into
/// the log): an insert as the role logged in, nothing else.
pub(super) fn waiver_guard() -> String {
    append_only(
        "vantage_waiver_guard",
        "a waiver records the role that writes it: % cannot write one as %",
        "",
        "waivers are append-only: % refused",
    )
}

/// `table` put under its guard `function`: every row and every TRUNCATE goes
/// through it, whoever asks (the table's owner too), and no UPDATE, DELETE
/// or TRUNCATE is granted to anyone.
pub(super) fn triggers(table: &str, function: &str) -> String {
    format!(
        "
CREATE TRIGGER {table}_append_only BEFORE INSERT OR UPDATE OR DELETE ON {table}
    FOR EACH ROW EXECUTE FUNCTION {function}();
CREATE TRIGGER {table}_no_truncate BEFORE TRUNCATE ON {table}
    FOR EACH STATEMENT EXECUTE FUNCTION {function}();
REVOKE UPDATE, DELETE, TRUNCATE ON {table} FROM PUBLIC;
"
    )
}
