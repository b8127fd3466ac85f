//! One shell command of a launch: the program, its flags, and how it is written out.

use serde::Serialize;

/// The programs a launch runs. Each framework file emits only its own programs'
/// flags; the tests hold each program's flag list with its source.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "kebab-case")]
pub enum Tool {
    VllmServe,
    SglangServer,
    SglangRouter,
    TrtllmServe,
    TrtllmDisaggregated,
    DynamoFrontend,
    DynamoVllm,
}

impl Tool {
    /// What the shell runs.
    pub fn program(self) -> &'static str {
        match self {
            Tool::VllmServe => "vllm serve",
            Tool::SglangServer => "python -m sglang.launch_server",
            Tool::SglangRouter => "python -m sglang_router.launch_router",
            Tool::TrtllmServe => "trtllm-serve",
            Tool::TrtllmDisaggregated => "trtllm-serve disaggregated",
            Tool::DynamoFrontend => "python3 -m dynamo.frontend",
            Tool::DynamoVllm => "python3 -m dynamo.vllm",
        }
    }
}

/// A flag and its value (`None`: a switch).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Arg {
    pub flag: String,
    pub value: Option<String>,
}

/// One command to run, `copies` times (separate servers or nodes, each the same).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Command {
    /// Where and how often it runs: "decode pool, 2 servers".
    pub title: String,
    pub tool: Tool,
    /// What runs the tool, written before it (a Slurm launcher), if anything.
    pub launcher: Option<String>,
    /// The positional model argument, where the tool takes one.
    pub model: Option<String>,
    pub args: Vec<Arg>,
    pub copies: u32,
}

impl Command {
    pub(crate) fn new(title: impl Into<String>, tool: Tool, model: Option<&str>) -> Command {
        Command {
            title: title.into(),
            tool,
            launcher: None,
            model: model.map(str::to_string),
            args: Vec::new(),
            copies: 1,
        }
    }

    /// Appends `--flag value`.
    pub(crate) fn arg(&mut self, flag: &str, value: impl ToString) -> &mut Command {
        self.args.push(Arg {
            flag: flag.to_string(),
            value: Some(value.to_string()),
        });
        self
    }

    /// Appends a switch.
    pub(crate) fn switch(&mut self, flag: &str) -> &mut Command {
        self.args.push(Arg {
            flag: flag.to_string(),
            value: None,
        });
        self
    }

    /// The value of `flag`, if the command sets it.
    pub fn value(&self, flag: &str) -> Option<&str> {
        self.args
            .iter()
            .find(|a| a.flag == flag)
            .and_then(|a| a.value.as_deref())
    }

    /// Whether the command carries `flag`.
    pub fn has(&self, flag: &str) -> bool {
        self.args.iter().any(|a| a.flag == flag)
    }

    /// The command as shell text, one flag a line.
    pub fn shell(&self) -> String {
        let mut head = String::new();
        if let Some(l) = &self.launcher {
            head.push_str(l);
            head.push(' ');
        }
        head.push_str(self.tool.program());
        if let Some(m) = &self.model {
            head.push(' ');
            head.push_str(&quote(m));
        }
        let mut lines = vec![head];
        lines.extend(self.args.iter().map(|a| match &a.value {
            Some(v) => format!("  {} {}", a.flag, quote(v)),
            None => format!("  {}", a.flag),
        }));
        lines.join(" \\\n")
    }
}

/// A value as the shell reads it: plain words as they are, `$VAR` and `$((...))`
/// left for the shell to expand, text holding a variable (JSON naming a placeholder)
/// in double quotes so it still expands, anything else (JSON) in single quotes.
fn quote(v: &str) -> String {
    let plain = v.chars().all(|c| {
        c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.' | '/' | ':' | '=' | ',' | '@')
    });
    let variable = v.starts_with('$')
        && v[1..]
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | ':' | '-' | '.' | '/'));
    let arithmetic = v.starts_with("$((") && v.ends_with("))") && !v.contains(['\'', '"']);
    if plain || variable || arithmetic {
        v.to_string()
    } else if v.contains('$') {
        let escaped: String = v
            .chars()
            .flat_map(|c| match c {
                '"' | '\\' | '`' => vec!['\\', c],
                c => vec![c],
            })
            .collect();
        format!("\"{escaped}\"")
    } else {
        format!("'{}'", v.replace('\'', r"'\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_is_single_quoted_and_variables_are_left_to_the_shell() {
        assert_eq!(quote(r#"{"a":1}"#), r#"'{"a":1}'"#);
        assert_eq!(quote("$HEAD_IP:5000"), "$HEAD_IP:5000");
        assert_eq!(quote("$((NODE_RANK * 8))"), "$((NODE_RANK * 8))");
        assert_eq!(
            quote("meta-llama/Llama-3.3-70B-Instruct"),
            "meta-llama/Llama-3.3-70B-Instruct"
        );
        assert_eq!(quote("it's"), r"'it'\''s'");
        assert_eq!(
            quote(r#"{"model":"$EAGLE_HEAD_REPO"}"#),
            r#""{\"model\":\"$EAGLE_HEAD_REPO\"}""#
        );
    }

    #[test]
    fn a_command_reads_back_its_flags() {
        let mut c = Command::new("x", Tool::VllmServe, Some("m/x"));
        c.arg("--tensor-parallel-size", 4)
            .switch("--enable-expert-parallel");
        assert_eq!(c.value("--tensor-parallel-size"), Some("4"));
        assert!(c.has("--enable-expert-parallel"));
        assert_eq!(
            c.shell(),
            "vllm serve m/x \\\n  --tensor-parallel-size 4 \\\n  --enable-expert-parallel"
        );
    }
}
