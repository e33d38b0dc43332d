pub fn render(_data: &super::ReportData) -> String {
    String::new()
}
