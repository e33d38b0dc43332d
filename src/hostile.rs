//! The hostile set: strings from an attacker who can name a project or write in
//! its chat. The generator puts them in its data on purpose (the reference
//! server's and `vantage demo`'s workspace, README "The generator"), so they
//! ship; the output tests run every format over them. A leaf module, so both
//! the server and the tests may use it. The raw bytes a hostile service may
//! send are test data only (`tests/it/common/hostile_service.rs`).

/// Strings that every client must render safely: control characters, ANSI and
/// OSC escape sequences, DEL and C1 controls, bidi controls, line and paragraph
/// separators, spreadsheet formulas (OWASP CSV injection), right-to-left text,
/// combining marks, length, and every family of terminal escape: CSI, OSC
/// (title, OSC 52 clipboard, OSC 8 links), DCS, APC, PM, SOS, the queries a
/// terminal answers (DSR, DA), C1 controls in UTF-8, tag characters.
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
        // Formulas a spreadsheet would run from a CSV cell.
        "=1+1".to_owned(),
        "+1".to_owned(),
        "-1+2".to_owned(),
        "@SUM(A1)".to_owned(),
        "\t=1+1 after a tab".to_owned(),
        "\r=1+1 after a carriage return".to_owned(),
        "=cmd|' /C calc'!A0".to_owned(),
        // DEL and C1 controls: U+009B is an 8-bit CSI, U+0085 NEL a line break.
        "del\u{7f} csi\u{9b}2J nel\u{85}next osc\u{9d}0;title\u{9c} c1 \u{80}\u{9f}".to_owned(),
        // Every bidi embedding, override and isolate, and both separators.
        "lre\u{202a} rle\u{202b} pdf\u{202c} lro\u{202d} rlo\u{202e} lri\u{2066} rli\u{2067} fsi\u{2068} pdi\u{2069}".to_owned(),
        "line\u{2028}separator paragraph\u{2029}separator".to_owned(),
        // OSC 52 ended by ST: sets the clipboard to `echo pwned`.
        "\u{1b}]52;c;ZWNobyBwd25lZAo=\u{1b}\\ osc52".to_owned(),
        // Queries whose answers a terminal types into the input: DSR (cursor
        // position), DA, the window title report, a colour query.
        "\u{1b}[6n dsr \u{1b}[c da \u{1b}[>0c \u{1b}[21t \u{1b}]10;?\u{7} queries".to_owned(),
        // DCS (XTGETTCAP, DECRQSS), APC, PM and SOS strings, ended by ST.
        "\u{1b}P+q544e\u{1b}\\ \u{1b}P$qm\u{1b}\\ dcs \u{1b}_apc\u{1b}\\ \u{1b}^pm\u{1b}\\ \u{1b}Xsos\u{1b}\\".to_owned(),
        // The same families as C1 controls in UTF-8: DCS, OSC, APC, ST.
        "c1 dcs\u{90}q\u{9c} osc\u{9d}52;c;eA==\u{7} apc\u{9f}x\u{9c}".to_owned(),
        // Tag characters, assigned and not, and the other invisible ones.
        "tags\u{e0001}\u{e0065}\u{e006e}\u{e007f}\u{e0000}\u{e0002} hidden\u{200b}\u{2060}\u{180e}\u{ad}\u{61c}\u{200e}\u{200f}".to_owned(),
    ]
}
