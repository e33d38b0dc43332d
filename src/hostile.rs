//! The hostile set: strings from an attacker who can name a project or write in
//! its chat. The generator puts them in its data, and the output tests run every
//! format over them. A leaf module, so both the server and the tests may use it.

/// Strings that every client must render safely: control characters, ANSI and
/// OSC escape sequences, right-to-left text, combining marks, and length.
pub fn hostile_strings() -> Vec<String> {
    vec![
        "\u{1b}[31mRED ALERT\u{1b}[0m \u{1b}[2J\u{1b}[H screen wiped".to_owned(),
        "\u{1b}]0;pwned title\u{7}\u{1b}]52;c;ZXZpbA==\u{7} clipboard write".to_owned(),
        "\u{1b}]8;;https://evil.example/\u{1b}\\click me\u{1b}]8;;\u{1b}\\".to_owned(),
        "bell\u{7} backspace\u{8}\u{8} null\u{0} del\u{7f} c1\u{9b}31m".to_owned(),
        "line one\nline two\r\rcarriage\ttab\u{b}vt\u{c}ff".to_owned(),
        "\u{202e}gnp.exe \u{2066}isolate\u{2069} مرحبا بالعالم שלום".to_owned(),
        "Z\u{0351}\u{0358}\u{0300}a\u{036b}\u{0301}\u{0302}l\u{0310}\u{0311}g\u{0352}o\u{0353}\u{0354}".to_owned(),
        "zero\u{200b}width\u{feff}joiner\u{200d}s and wide 表示テスト 😀".to_owned(),
        format!("long {}", "x".repeat(4_995)),
    ]
}
