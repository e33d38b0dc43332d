//! A state's body as the database keeps it (schema 5): the JSON deflated
//! against a preset dictionary of what the states share (their keys and the
//! contract's common values). A project's 300 bytes take about 100: PostgreSQL
//! compresses only values over 2 kB, and a state alone repeats too little to
//! shrink. The first byte names the format, so a later dictionary is another
//! format and the rows written before it still read. The digest is of the JSON
//! itself (`document.rs`), whatever the packing.

use std::cell::RefCell;

use flate2::{Compress, Compression, Decompress, FlushCompress, FlushDecompress, Status};
use postgres::Transaction;
use postgres::types::{FromSql, Type};

use super::Step;
use super::backfill::set_by_id;
use super::column::column;

/// Raw deflate against [`DICTIONARY_V1`].
const DEFLATE_V1: u8 = 1;

/// What a state's JSON most often holds, the likeliest last (a nearer match
/// costs fewer bits). Never change it: add a format with another.
const DICTIONARY_V1: &[u8] = br#"{"user_id":"","kind":"user","role":null,"role":"member","role":"admin","role":"owner","name":null,"name_read":false,"name_read":true}{"workspace_id":"ws_","total_projects":,"published_projects":,"public_projects":,"needs_review":,"review_recommended":,"open_pii_findings":,"public_security_exposure","public_pii_exposure","external_collaborator_access","inactive_owner","restricted","workspace_view","public","custom","no_review_needed","unscored","secret","pii"],"pii_open":null,"pii_open":0,"connectors":[],"edge_functions":[],"owner":null,"owner":"{"id":"prj_","name":"","is_published":false,"is_published":true,"audience":null,"audience":"workspace","audience_targets":null,"audience_targets":[],"visibility":"workspace_edit","review_priority":"review_recommended","review_priority":"needs_review","finding_types":[],"finding_types":[""#;

/// The longest body a stored state may unpack to: a damaged or hostile row
/// never takes more memory than this.
const MAX_BODY_BYTES: usize = 16 * 1024 * 1024;

thread_local! {
    /// One deflater and one inflater a thread, reset for each body: a new
    /// one allocates its window and tables (hundreds of kB for a deflater),
    /// far more than a body of 300 bytes costs, 20,000 times a snapshot.
    static DEFLATER: RefCell<Compress> = RefCell::new(Compress::new(Compression::default(), false));
    static INFLATER: RefCell<Decompress> = RefCell::new(Decompress::new(false));
}

/// `body` packed for the `state` table.
pub(super) fn pack(body: &str) -> Vec<u8> {
    DEFLATER.with(|deflater| match deflater.try_borrow_mut() {
        Ok(mut compress) => pack_with(&mut compress, body),
        Err(_) => pack_with(&mut Compress::new(Compression::default(), false), body),
    })
}

fn pack_with(compress: &mut Compress, body: &str) -> Vec<u8> {
    compress.reset();
    // The zlib backend takes any dictionary; a failure would only cost the
    // compression, so the body is then stored as it is (format 0).
    if compress.set_dictionary(DICTIONARY_V1).is_err() {
        return stored(body);
    }
    let mut out = Vec::with_capacity(body.len() / 2 + 64);
    out.push(DEFLATE_V1);
    loop {
        match compress.compress_vec(body.as_bytes(), &mut out, FlushCompress::Finish) {
            Ok(Status::StreamEnd) => return out,
            Ok(_) => out.reserve(body.len().max(64)),
            Err(_) => return stored(body),
        }
        if out.len() > body.len() + 1024 {
            return stored(body);
        }
    }
}

/// Format 0: the JSON as it is.
fn stored(body: &str) -> Vec<u8> {
    let mut out = Vec::with_capacity(body.len() + 1);
    out.push(0);
    out.extend_from_slice(body.as_bytes());
    out
}

/// A stored body read back as its JSON text.
pub(super) fn unpack(packed: &[u8]) -> Result<String, String> {
    let (format, data) = packed
        .split_first()
        .ok_or_else(|| "an empty packed body".to_owned())?;
    let bytes = match *format {
        0 => data.to_vec(),
        DEFLATE_V1 => inflate(data)?,
        other => {
            return Err(format!(
                "a body packed in format {other}, unknown to this build"
            ));
        }
    };
    String::from_utf8(bytes).map_err(|_| "a packed body that is not UTF-8".to_owned())
}

fn inflate(data: &[u8]) -> Result<Vec<u8>, String> {
    INFLATER.with(|inflater| match inflater.try_borrow_mut() {
        Ok(mut decompress) => inflate_with(&mut decompress, data),
        Err(_) => inflate_with(&mut Decompress::new(false), data),
    })
}

fn inflate_with(decompress: &mut Decompress, data: &[u8]) -> Result<Vec<u8>, String> {
    let damaged =
        |error: &dyn std::fmt::Display| format!("a packed body does not inflate: {error}");
    decompress.reset(false);
    // A raw stream names no dictionary: its format does.
    decompress
        .set_dictionary(DICTIONARY_V1)
        .map_err(|error| damaged(&error))?;
    let mut out = Vec::with_capacity(data.len() * 4 + 64);
    loop {
        let before = (decompress.total_in(), decompress.total_out());
        let rest = data
            .get(decompress.total_in() as usize..)
            .unwrap_or_default();
        let status = decompress
            .decompress_vec(rest, &mut out, FlushDecompress::Finish)
            .map_err(|error| damaged(&error))?;
        match status {
            Status::StreamEnd => return Ok(out),
            _ if out.len() >= MAX_BODY_BYTES => {
                return Err(format!("a packed body over {MAX_BODY_BYTES} bytes"));
            }
            _ if out.len() == out.capacity() => out.reserve(out.len().max(256)),
            _ if (decompress.total_in(), decompress.total_out()) == before => {
                return Err(damaged(&"it ends early"));
            }
            _ => {}
        }
    }
}

/// A `state.body` column read back: its JSON. Before schema 5 (the steps
/// from older schemas read states on their way up) a body is still text.
pub(super) struct PackedBody(pub String);

impl<'a> FromSql<'a> for PackedBody {
    fn from_sql(
        ty: &Type,
        raw: &'a [u8],
    ) -> Result<Self, Box<dyn std::error::Error + Sync + Send>> {
        if <String as FromSql>::accepts(ty) {
            return Ok(Self(String::from_sql(ty, raw)?));
        }
        let packed = <&[u8] as FromSql>::from_sql(ty, raw)?;
        Ok(Self(unpack(packed)?))
    }

    fn accepts(ty: &Type) -> bool {
        <&[u8] as FromSql>::accepts(ty) || *ty == Type::TEXT
    }
}

/// Rows the step to schema 5 packs at a time.
const PACK_PAGE: i64 = 2000;

/// Version 4 to 5: every state's body packed in place, a page at a time (the
/// table keeps its grants), then the table written again without the space
/// the old bodies took.
pub(super) fn pack_states(transaction: &mut Transaction<'_>) -> Step<()> {
    transaction.batch_execute("ALTER TABLE state ADD COLUMN packed BYTEA")?;
    let mut after = i64::MIN;
    loop {
        let rows = transaction.query(
            "SELECT id, body FROM state WHERE id > $1 ORDER BY id LIMIT $2",
            &[&after, &PACK_PAGE],
        )?;
        let Some(last) = rows.last() else {
            break;
        };
        after = column(last, "state", 0)?;
        let mut ids = Vec::with_capacity(rows.len());
        let mut packed = Vec::with_capacity(rows.len());
        for row in &rows {
            ids.push(column::<i64>(row, "state", 0)?);
            packed.push(pack(column(row, "state", 1)?));
        }
        set_by_id(transaction, "state", "packed", &ids, &packed)?;
    }
    transaction.batch_execute(
        "ALTER TABLE state DROP COLUMN body;
         ALTER TABLE state RENAME COLUMN packed TO body;
         ALTER TABLE state ALTER COLUMN body SET NOT NULL;
         CLUSTER state USING state_pkey;",
    )?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_body_packs_smaller_and_reads_back_the_same() {
        let body = r#"{"id":"prj_0123456789ab","name":"Quiet harbor 42","is_published":true,"audience":"workspace","audience_targets":[],"visibility":"workspace_edit","review_priority":"needs_review","finding_types":["pii","secret"],"pii_open":2,"connectors":["stripe"],"edge_functions":[],"owner":"Maria Garcia"}"#;
        let packed = pack(body);
        assert_eq!(packed[0], DEFLATE_V1);
        assert!(
            packed.len() * 2 < body.len(),
            "{} bytes packed from {}",
            packed.len(),
            body.len()
        );
        assert_eq!(unpack(&packed).unwrap(), body);
        for odd in ["", "{}", "ünïcødé \u{1F600}", &"x".repeat(100_000)] {
            assert_eq!(unpack(&pack(odd)).unwrap(), odd);
        }
    }

    #[test]
    fn a_damaged_body_is_an_error_never_a_panic() {
        let packed = pack(r#"{"id":"prj_1","name":"a"}"#);
        assert!(unpack(&[]).is_err());
        assert!(unpack(&[9, 1, 2]).unwrap_err().contains("format 9"));
        assert!(unpack(&packed[..packed.len() / 2]).is_err());
        let mut flipped = packed.clone();
        flipped[1] ^= 0xff;
        let _ = unpack(&flipped);
        assert_eq!(unpack(&[0, b'{', b'}']).unwrap(), "{}");
        assert!(unpack(&[0, 0xff]).is_err());
        // The thread's inflater is reset after a failure: the next body reads.
        assert_eq!(unpack(&packed).unwrap(), r#"{"id":"prj_1","name":"a"}"#);
    }

    #[test]
    fn bodies_packed_one_after_another_stay_apart() {
        let bodies: Vec<String> = (0..50)
            .map(|n| {
                format!(
                    r#"{{"id":"prj_{n}","name":"take {n}","is_published":{}}}"#,
                    n % 2 == 0
                )
            })
            .collect();
        let packed: Vec<Vec<u8>> = bodies.iter().map(|body| pack(body)).collect();
        for (body, packed) in bodies.iter().zip(&packed).rev() {
            assert_eq!(&unpack(packed).unwrap(), body);
        }
    }
}
