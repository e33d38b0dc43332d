//! Credential sources, their order, and the warning for a key file others can
//! read. The environment is injected, so tests never touch the process's.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use vantage::config::{
    ConfigWarning, CredentialError, CredentialSource, LoadedConfig, resolve_credential,
};

fn write_config(dir: &Path, text: &str, mode: u32) -> PathBuf {
    let path = dir.join("config.toml");
    std::fs::write(&path, text).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(mode)).unwrap();
    }
    #[cfg(not(unix))]
    let _ = mode;
    path
}

fn env(pairs: &[(&str, &str)]) -> impl Fn(&str) -> Option<String> {
    let map: HashMap<String, String> = pairs
        .iter()
        .map(|(k, v)| ((*k).to_owned(), (*v).to_owned()))
        .collect();
    move |name| map.get(name).cloned()
}

const FULL: &str = r#"
base_url = "https://api.example.com"
api_key_command = "printf 'from_command\nsecond line\n'"
api_key = "from_file"
"#;

#[test]
fn sources_are_tried_in_order() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_config(dir.path(), FULL, 0o600);
    let config = LoadedConfig::load(Some(&path)).unwrap();
    let all = env(&[
        ("MY_KEY", "from_flag_env"),
        ("SERVICE_API_KEY", "from_default_env"),
    ]);

    let chosen = resolve_credential(Some("MY_KEY"), &config, &all).unwrap();
    assert_eq!(chosen.key.expose_secret(), "from_flag_env");
    assert_eq!(chosen.source, CredentialSource::EnvFlag("MY_KEY".into()));

    let chosen = resolve_credential(None, &config, &all).unwrap();
    assert_eq!(chosen.key.expose_secret(), "from_default_env");
    assert_eq!(chosen.source, CredentialSource::DefaultEnv);

    // An empty variable counts as unset.
    let chosen = resolve_credential(None, &config, env(&[("SERVICE_API_KEY", " ")])).unwrap();
    assert_eq!(
        chosen.key.expose_secret(),
        "from_command",
        "first line only"
    );
    assert_eq!(chosen.source, CredentialSource::Command);

    let without_command = write_config(
        dir.path(),
        "base_url = \"https://api.example.com\"\napi_key = \"from_file\"\n",
        0o600,
    );
    let config = LoadedConfig::load(Some(&without_command)).unwrap();
    let chosen = resolve_credential(None, &config, env(&[])).unwrap();
    assert_eq!(chosen.key.expose_secret(), "from_file");
    assert_eq!(chosen.source, CredentialSource::ConfigFile(without_command));
    assert!(chosen.warnings.is_empty(), "{:?}", chosen.warnings);
}

#[test]
fn a_named_variable_that_is_unset_does_not_fall_back() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_config(dir.path(), FULL, 0o600);
    let config = LoadedConfig::load(Some(&path)).unwrap();
    let error = resolve_credential(
        Some("MISSING_KEY"),
        &config,
        env(&[("SERVICE_API_KEY", "other")]),
    )
    .unwrap_err();
    let shown = error.to_string();
    assert!(shown.contains("--api-key-env MISSING_KEY"), "{shown}");
    assert!(!shown.contains("other"), "{shown}");
}

#[test]
fn no_source_lists_every_source_tried_and_how_to_set_one() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_config(dir.path(), "base_url = \"https://a.example\"\n", 0o644);
    let config = LoadedConfig::load(Some(&path)).unwrap();
    let error = resolve_credential(None, &config, env(&[])).unwrap_err();
    let CredentialError::NotFound { tried, .. } = &error else {
        panic!("{error:?}");
    };
    assert_eq!(tried.len(), 3, "{tried:?}");
    assert!(tried[0].starts_with("SERVICE_API_KEY"));
    assert!(tried[1].starts_with("api_key_command"));
    assert!(tried[2].starts_with("api_key:"));
    let shown = error.to_string();
    assert!(shown.contains("export SERVICE_API_KEY="), "{shown}");
    assert!(shown.contains(&path.display().to_string()), "{shown}");

    // No file at all: the message names where it would be.
    let missing = LoadedConfig {
        path: Some(dir.path().join("absent.toml")),
        exists: false,
        ..LoadedConfig::default()
    };
    let shown = resolve_credential(None, &missing, env(&[]))
        .unwrap_err()
        .to_string();
    assert!(shown.contains("no config file at"), "{shown}");
    assert!(shown.contains("absent.toml"), "{shown}");
}

#[test]
fn a_failing_key_command_is_an_error_without_its_output() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_config(
        dir.path(),
        "api_key_command = \"echo leaked_secret; exit 3\"\napi_key = \"from_file\"\n",
        0o600,
    );
    let config = LoadedConfig::load(Some(&path)).unwrap();
    let error = resolve_credential(None, &config, env(&[])).unwrap_err();
    let shown = error.to_string();
    assert!(matches!(error, CredentialError::Command { .. }), "{shown}");
    assert!(shown.contains("exit"), "{shown}");
    assert!(!shown.contains("leaked_secret"), "{shown}");

    let empty = write_config(dir.path(), "api_key_command = \"true\"\n", 0o600);
    let config = LoadedConfig::load(Some(&empty)).unwrap();
    let shown = resolve_credential(None, &config, env(&[]))
        .unwrap_err()
        .to_string();
    assert!(shown.contains("printed nothing"), "{shown}");
}

#[cfg(unix)]
#[test]
fn a_key_file_readable_by_others_draws_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let text = "api_key = \"vtg_file_secret\"\n";
    for (mode, warned) in [
        (0o644, true),
        (0o640, true),
        (0o604, true),
        (0o600, false),
        (0o400, false),
    ] {
        let path = write_config(dir.path(), text, mode);
        let config = LoadedConfig::load(Some(&path)).unwrap();
        // Even when another source wins, the file still exposes a key.
        let chosen = resolve_credential(None, &config, env(&[("SERVICE_API_KEY", "e")])).unwrap();
        assert_eq!(chosen.warnings.len(), usize::from(warned), "mode {mode:o}");
        if warned {
            let ConfigWarning::KeyFileReadable {
                path: warned_path,
                mode: seen,
            } = &chosen.warnings[0];
            assert_eq!(warned_path, &path);
            assert_eq!(seen & 0o777, mode);
            let shown = chosen.warnings[0].to_string();
            assert!(shown.contains("chmod 600"), "{shown}");
            assert!(!shown.contains("vtg_file_secret"), "{shown}");
        }
    }
    // A readable file without a key is no concern.
    let path = write_config(dir.path(), "base_url = \"https://a.example\"\n", 0o644);
    let config = LoadedConfig::load(Some(&path)).unwrap();
    let chosen = resolve_credential(None, &config, env(&[("SERVICE_API_KEY", "e")])).unwrap();
    assert!(chosen.warnings.is_empty());
}

#[test]
fn keys_never_print() {
    let dir = tempfile::tempdir().unwrap();
    let path = write_config(dir.path(), "api_key = \"vtg_file_secret\"\n", 0o600);
    let config = LoadedConfig::load(Some(&path)).unwrap();
    assert!(!format!("{config:?}").contains("vtg_file_secret"));
    let chosen = resolve_credential(None, &config, env(&[])).unwrap();
    assert!(!format!("{chosen:?}").contains("vtg_file_secret"));
    assert!(!chosen.key.to_string().contains("vtg_file_secret"));
}

#[test]
fn an_explicit_config_file_must_exist() {
    let dir = tempfile::tempdir().unwrap();
    let error = LoadedConfig::load(Some(&dir.path().join("nope.toml"))).unwrap_err();
    assert!(error.to_string().contains("nope.toml"));
}
