//! A small checker of an XML document against the subset of XML Schema the
//! vendored JUnit schema uses (`fixtures/junit.xsd`): global elements, each
//! a complex type (mixed or not) with a sequence of element refs bounded by
//! minOccurs/maxOccurs and typed attributes (required, none undeclared), or
//! a simple `xs:string` element.

use std::collections::HashMap;

const XS: &str = "http://www.w3.org/2001/XMLSchema";

struct Particle {
    name: String,
    min: usize,
    max: Option<usize>,
}

struct Attribute {
    kind: String,
    required: bool,
}

struct ElementType {
    mixed: bool,
    /// `None`: a simple-content element (text only).
    sequence: Option<Vec<Particle>>,
    attributes: HashMap<String, Attribute>,
}

pub struct Schema {
    elements: HashMap<String, ElementType>,
}

fn occurs(node: roxmltree::Node<'_, '_>, name: &str) -> Option<usize> {
    match node.attribute(name) {
        None => Some(1),
        Some("unbounded") => None,
        Some(n) => Some(n.parse().unwrap()),
    }
}

impl Schema {
    pub fn parse(xsd: &str) -> Self {
        let document = roxmltree::Document::parse(xsd).unwrap();
        let mut elements = HashMap::new();
        for element in document
            .root_element()
            .children()
            .filter(|n| n.has_tag_name((XS, "element")))
        {
            let name = element.attribute("name").unwrap().to_owned();
            let complex = element
                .children()
                .find(|n| n.has_tag_name((XS, "complexType")));
            let Some(complex) = complex else {
                assert_eq!(element.attribute("type"), Some("xs:string"), "{name}");
                elements.insert(
                    name,
                    ElementType {
                        mixed: true,
                        sequence: None,
                        attributes: HashMap::new(),
                    },
                );
                continue;
            };
            let sequence = complex
                .children()
                .find(|n| n.has_tag_name((XS, "sequence")))
                .map(|sequence| {
                    sequence
                        .children()
                        .filter(|n| n.has_tag_name((XS, "element")))
                        .map(|particle| Particle {
                            name: particle.attribute("ref").unwrap().to_owned(),
                            min: occurs(particle, "minOccurs").unwrap(),
                            max: occurs(particle, "maxOccurs"),
                        })
                        .collect()
                })
                .unwrap_or_default();
            let attributes = complex
                .children()
                .filter(|n| n.has_tag_name((XS, "attribute")))
                .map(|attribute| {
                    (
                        attribute.attribute("name").unwrap().to_owned(),
                        Attribute {
                            kind: attribute.attribute("type").unwrap().to_owned(),
                            required: attribute.attribute("use") == Some("required"),
                        },
                    )
                })
                .collect();
            elements.insert(
                name,
                ElementType {
                    mixed: complex.attribute("mixed") == Some("true"),
                    sequence: Some(sequence),
                    attributes,
                },
            );
        }
        Self { elements }
    }

    /// Every way `document` breaks the schema, empty when it conforms.
    pub fn check(&self, document: &str, root: &str) -> Vec<String> {
        let parsed = match roxmltree::Document::parse(document) {
            Ok(parsed) => parsed,
            Err(error) => return vec![format!("not well-formed XML: {error}")],
        };
        let mut problems = Vec::new();
        let top = parsed.root_element();
        if top.tag_name().name() != root {
            problems.push(format!(
                "the root is <{}>, not <{root}>",
                top.tag_name().name()
            ));
        }
        self.check_element(top, &mut problems);
        problems
    }

    fn check_element(&self, node: roxmltree::Node<'_, '_>, problems: &mut Vec<String>) {
        let name = node.tag_name().name();
        let at = format!("<{name}> at byte {}", node.range().start);
        let Some(kind) = self.elements.get(name) else {
            problems.push(format!("{at}: not declared"));
            return;
        };
        for attribute in node.attributes() {
            match kind.attributes.get(attribute.name()) {
                None => problems.push(format!("{at}: attribute {} not declared", attribute.name())),
                Some(declared) => {
                    let value = attribute.value();
                    let fits = match declared.kind.as_str() {
                        "xs:int" => value.parse::<i32>().is_ok(),
                        "xs:decimal" => {
                            !value.is_empty()
                                && value
                                    .chars()
                                    .all(|c| c.is_ascii_digit() || c == '.' || c == '-')
                                && value.parse::<f64>().is_ok()
                        }
                        "xs:dateTime" => time::PrimitiveDateTime::parse(
                            value,
                            time::macros::format_description!(
                                "[year]-[month]-[day]T[hour]:[minute]:[second]"
                            ),
                        )
                        .is_ok(),
                        _ => true,
                    };
                    if !fits {
                        problems.push(format!(
                            "{at}: attribute {}={value:?} is not a {}",
                            attribute.name(),
                            declared.kind
                        ));
                    }
                }
            }
        }
        for (attribute, declared) in &kind.attributes {
            if declared.required && node.attribute(attribute.as_str()).is_none() {
                problems.push(format!("{at}: required attribute {attribute} missing"));
            }
        }
        let children: Vec<_> = node.children().filter(|n| n.is_element()).collect();
        let text = node
            .children()
            .filter(|n| n.is_text())
            .any(|n| !n.text().unwrap_or("").trim().is_empty());
        if text && !kind.mixed {
            problems.push(format!("{at}: text where only elements may be"));
        }
        let Some(sequence) = &kind.sequence else {
            if !children.is_empty() {
                problems.push(format!("{at}: elements inside a text-only element"));
            }
            return;
        };
        let mut index = 0;
        for particle in sequence {
            let mut seen = 0;
            while index < children.len()
                && children[index].tag_name().name() == particle.name
                && particle.max.is_none_or(|max| seen < max)
            {
                seen += 1;
                index += 1;
            }
            if seen < particle.min {
                problems.push(format!("{at}: expected <{}>", particle.name));
            }
        }
        if let Some(extra) = children.get(index) {
            problems.push(format!(
                "{at}: <{}> is not allowed there",
                extra.tag_name().name()
            ));
        }
        for child in children {
            self.check_element(child, problems);
        }
    }
}

#[test]
fn the_checker_refuses_what_the_schema_does_not_allow() {
    let schema = Schema::parse(include_str!("fixtures/junit.xsd"));
    let good = r#"<testsuites><testsuite name="a" tests="1" timestamp="2026-11-22T12:00:00"><testcase name="x"><failure message="m">t</failure></testcase><system-out/></testsuite></testsuites>"#;
    assert_eq!(schema.check(good, "testsuites"), Vec::<String>::new());
    let missing_tests = r#"<testsuites><testsuite name="a"/></testsuites>"#;
    assert!(!schema.check(missing_tests, "testsuites").is_empty());
    let out_of_order = r#"<testsuites><testsuite name="a" tests="1"><system-out/><testcase name="x"/></testsuite></testsuites>"#;
    assert!(!schema.check(out_of_order, "testsuites").is_empty());
    let unknown = r#"<testsuites><testsuite name="a" tests="one"><case/></testsuite></testsuites>"#;
    // tests="one", and <case> undeclared and out of place.
    assert_eq!(schema.check(unknown, "testsuites").len(), 3);
}
