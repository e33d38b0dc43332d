//! `vantage report`: what vantage knows, handed over: to people (HTML, Markdown) and to
//! machines (OCSF, DefectDojo).

pub mod machine;
