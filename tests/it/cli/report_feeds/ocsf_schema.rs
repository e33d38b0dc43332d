//! A validator of OCSF records against the schema's own source files (vendored from the
//! OCSF project's `ocsf-schema` repository at tag 1.8.0, Apache-2.0: `ocsf-1.8.0/LICENSE`).
//!
//! It resolves what the schema server would: a class's attributes through `extends`
//! (`detection_finding` → `finding` → `base_event`), an object's the same way, each
//! attribute's type and enum from the dictionary with the class's or object's own overlay.
//! It checks required attributes, that no attribute is unknown (profiles are not declared,
//! so their attributes are unknown too), types, enums, `at_least_one` constraints, that a
//! caption sibling (`severity` for `severity_id`) matches its id, and the class's uids.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde_json::{Map, Value};

pub struct Schema {
    dir: PathBuf,
    dictionary: Map<String, Value>,
    types: Map<String, Value>,
}

fn load(path: &Path) -> Map<String, Value> {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|error| panic!("read {}: {error} (is the file vendored?)", path.display()));
    match serde_json::from_str(&text) {
        Ok(Value::Object(map)) => map,
        other => panic!("{}: not a JSON object: {other:?}", path.display()),
    }
}

/// An attribute's definition: the dictionary's, with the class's or object's keys on top.
type Attributes = BTreeMap<String, Map<String, Value>>;

impl Schema {
    pub fn vendored() -> Self {
        let dir =
            Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/it/cli/report_feeds/ocsf-1.8.0");
        let mut dictionary = load(&dir.join("dictionary.json"));
        let attributes = match dictionary.remove("attributes") {
            Some(Value::Object(map)) => map,
            _ => panic!("dictionary without attributes"),
        };
        let types = match dictionary
            .get("types")
            .and_then(|types| types.get("attributes"))
        {
            Some(Value::Object(map)) => map.clone(),
            _ => panic!("dictionary without types"),
        };
        Self {
            dir,
            dictionary: attributes,
            types,
        }
    }

    /// Attributes of a definition file and everything it extends, the file's own last.
    fn resolve(
        &self,
        file: &Path,
        lookup: &dyn Fn(&str) -> PathBuf,
    ) -> (Attributes, Map<String, Value>) {
        let own = load(file);
        let (mut attributes, mut definition) = match own.get("extends").and_then(Value::as_str) {
            Some(parent) => self.resolve(&lookup(parent), lookup),
            None => (Attributes::new(), Map::new()),
        };
        if let Some(Value::Object(own_attributes)) = own.get("attributes") {
            for (name, overlay) in own_attributes {
                if name.starts_with('$') {
                    continue; // `$include`: profiles, which these records do not declare
                }
                let entry = attributes.entry(name.clone()).or_insert_with(|| {
                    match self.dictionary.get(name) {
                        Some(Value::Object(base)) => base.clone(),
                        _ => panic!(
                            "{}: attribute {name} is not in the dictionary",
                            file.display()
                        ),
                    }
                });
                if let Value::Object(overlay) = overlay {
                    for (key, value) in overlay {
                        // An enum overlay adds to the dictionary's values (0 Unknown and
                        // 99 Other stay), as the schema server merges them.
                        match (entry.get_mut(key), value) {
                            (Some(Value::Object(base)), Value::Object(more)) => {
                                base.extend(more.clone());
                            }
                            _ => {
                                entry.insert(key.clone(), value.clone());
                            }
                        }
                    }
                }
            }
        }
        for (key, value) in own {
            if key != "attributes" {
                definition.insert(key, value);
            }
        }
        (attributes, definition)
    }

    fn object(&self, name: &str) -> (Attributes, Map<String, Value>) {
        let dir = self.dir.join("objects");
        let lookup = |parent: &str| dir.join(format!("{parent}.json"));
        self.resolve(&lookup(name), &lookup)
    }

    /// The base of a type: `integer_t`, `long_t`, `float_t`, `boolean_t`, `string_t`,
    /// `json_t`, or `None` for an object type.
    fn base_type<'a>(&'a self, name: &'a str) -> Option<&'a str> {
        let mut current = name;
        loop {
            let spec = self.types.get(current)?;
            match spec.get("type").and_then(Value::as_str) {
                Some(parent) => current = parent,
                None => return Some(current),
            }
        }
    }

    /// Every problem of one Detection Finding record; empty when it is valid.
    pub fn check_detection_finding(&self, record: &Value) -> Vec<String> {
        let events = self.dir.join("events");
        let lookup = |parent: &str| match parent {
            "base_event" => events.join("base_event.json"),
            other => events.join("findings").join(format!("{other}.json")),
        };
        let (attributes, definition) = self.resolve(&lookup("detection_finding"), &lookup);
        let mut problems = Vec::new();
        self.check_object_value(record, &attributes, &definition, "", &mut problems);
        let categories = load(&self.dir.join("categories.json"));
        let category = definition
            .get("category")
            .and_then(Value::as_str)
            .unwrap_or("");
        let category_uid = categories["attributes"][category]["uid"]
            .as_i64()
            .unwrap_or(-1);
        let class_uid = category_uid * 1000 + definition["uid"].as_i64().unwrap_or(-1);
        if record["category_uid"].as_i64() != Some(category_uid) {
            problems.push(format!("category_uid is not {category_uid}"));
        }
        if record["class_uid"].as_i64() != Some(class_uid) {
            problems.push(format!("class_uid is not {class_uid}"));
        }
        let activity = record["activity_id"].as_i64().unwrap_or(-1);
        if record["type_uid"].as_i64() != Some(class_uid * 100 + activity) {
            problems.push("type_uid is not class_uid * 100 + activity_id".to_owned());
        }
        problems
    }

    fn check_object_value(
        &self,
        value: &Value,
        attributes: &Attributes,
        definition: &Map<String, Value>,
        path: &str,
        problems: &mut Vec<String>,
    ) {
        let Value::Object(fields) = value else {
            problems.push(format!("{path}: not an object"));
            return;
        };
        for (name, spec) in attributes {
            if spec.get("requirement").and_then(Value::as_str) == Some("required")
                && !fields.contains_key(name)
            {
                problems.push(format!("{path}.{name}: required, missing"));
            }
        }
        if let Some(Value::Array(names)) = definition
            .get("constraints")
            .and_then(|constraints| constraints.get("at_least_one"))
            && !names
                .iter()
                .any(|name| name.as_str().is_some_and(|name| fields.contains_key(name)))
        {
            problems.push(format!("{path}: needs at least one of {names:?}"));
        }
        for (name, field) in fields {
            let at = format!("{path}.{name}");
            let Some(spec) = attributes.get(name) else {
                problems.push(format!("{at}: not an attribute here"));
                continue;
            };
            let is_array = spec
                .get("is_array")
                .and_then(Value::as_bool)
                .unwrap_or(false);
            match (is_array, field) {
                (true, Value::Array(items)) => {
                    for (index, item) in items.iter().enumerate() {
                        self.check_typed(item, spec, &format!("{at}[{index}]"), problems);
                    }
                }
                (true, _) => problems.push(format!("{at}: must be an array")),
                (false, _) => self.check_typed(field, spec, &at, problems),
            }
            // The uids' enums are the schema server's to fill in; the class's uids are checked
            // by their definition instead (`check_detection_finding`).
            let computed = matches!(name.as_str(), "category_uid" | "class_uid" | "type_uid");
            if let (Some(Value::Object(values)), Some(id), false) =
                (spec.get("enum"), field.as_i64(), computed)
            {
                if !values.contains_key(&id.to_string()) {
                    problems.push(format!("{at}: {id} is not in its enum"));
                }
                let sibling = spec.get("sibling").and_then(Value::as_str);
                if let (Some(sibling), true) = (sibling, id != 99) {
                    let caption = values
                        .get(&id.to_string())
                        .and_then(|value| value["caption"].as_str());
                    if let Some(text) = fields.get(sibling)
                        && text.as_str() != caption
                    {
                        problems.push(format!(
                            "{path}.{sibling}: {text} is not {id}'s caption {caption:?}"
                        ));
                    }
                }
            }
        }
    }

    fn check_typed(
        &self,
        value: &Value,
        spec: &Map<String, Value>,
        at: &str,
        problems: &mut Vec<String>,
    ) {
        let Some(type_name) = spec.get("type").and_then(Value::as_str) else {
            problems.push(format!("{at}: the schema gives no type"));
            return;
        };
        let ok = match self.base_type(type_name) {
            Some("integer_t" | "long_t") => value.is_i64() || value.is_u64(),
            Some("float_t") => value.is_number(),
            Some("boolean_t") => value.is_boolean(),
            Some("string_t") => value.is_string(),
            Some("json_t") => true,
            Some(other) => {
                problems.push(format!("{at}: unhandled base type {other}"));
                true
            }
            None => {
                let (attributes, definition) = self.object(type_name);
                self.check_object_value(value, &attributes, &definition, at, problems);
                true
            }
        };
        if !ok {
            problems.push(format!("{at}: {value} is not a {type_name}"));
        }
    }
}
