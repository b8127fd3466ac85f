//! Records given as lists. serde reads a struct from a JSON array too, by position, so
//! `"workload": [300, 50]` would be read as an input length of 300 and an output of 50,
//! and an assumptions file `[0.3]` as an `mfu` of 0.3. Nobody writes files that way on
//! purpose, and a misread file must be refused, not read. Rather than keep a second copy
//! of every schema, a reader compares what it was given with what it read, written back:
//! wherever the reading is a record (a JSON object), the input must have been one too.

use serde_json::Value;

/// The first place, as a field path (`workload`, `chips[0].fast`), where `read` (the
/// parsed value written back to JSON) holds an object and `given` (the input) held an
/// array: a record given as a positional list. `None` where there is none.
pub fn list_for_record(given: &Value, read: &Value) -> Option<String> {
    walk(given, read, String::new())
}

fn walk(given: &Value, read: &Value, path: String) -> Option<String> {
    match (given, read) {
        (Value::Array(_), Value::Object(_)) => Some(if path.is_empty() {
            "(the file)".to_string()
        } else {
            path
        }),
        (Value::Object(g), Value::Object(r)) => r.iter().find_map(|(key, inner)| {
            let at = if path.is_empty() {
                key.clone()
            } else {
                format!("{path}.{key}")
            };
            g.get(key).and_then(|given| walk(given, inner, at))
        }),
        (Value::Array(g), Value::Array(r)) => g
            .iter()
            .zip(r)
            .enumerate()
            .find_map(|(i, (given, inner))| walk(given, inner, format!("{path}[{i}]"))),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_list_where_a_record_was_read_is_named_by_its_path() {
        let read = json!({"workload": {"isl": 300, "osl": 50}, "chips": [{"fast": {"bw": 1}}]});
        assert_eq!(list_for_record(&read, &read), None);
        let given = json!({"workload": [300, 50], "chips": [{"fast": {"bw": 1}}]});
        assert_eq!(list_for_record(&given, &read).as_deref(), Some("workload"));
        let given = json!({"workload": {"isl": 300, "osl": 50}, "chips": [{"fast": [1]}]});
        assert_eq!(
            list_for_record(&given, &read).as_deref(),
            Some("chips[0].fast")
        );
        assert_eq!(
            list_for_record(&json!([0.3]), &json!({"mfu": 0.3})).as_deref(),
            Some("(the file)")
        );
        // Fields the input left out (read as their defaults) are not its concern.
        assert_eq!(list_for_record(&json!({}), &read), None);
    }
}
