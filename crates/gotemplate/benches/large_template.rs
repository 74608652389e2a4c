//! Parse and execute a large generated template (Go builtins only) and report the median time
//! of each phase. `scripts/bench/gotemplate` runs this and the same workload in Go's
//! text/template, alternating them; BENCHMARKS.md records the results.
//!
//! Run: `cargo bench -p gotemplate --bench large_template`

use std::time::{Duration, Instant};

use gotemplate::{FuncMap, List, Map, MissingKey, Templates, Value};

/// The workload, described once so the Go side (scripts/bench/gotemplate/main.go) builds the
/// very same text and data.
const SECTIONS: usize = 400;
const ITEMS: usize = 60;

fn template_text() -> String {
    let mut text = String::new();
    for s in 0..SECTIONS {
        text.push_str(&format!(
            r#"{{{{- define "section-{s}" }}}}
section-{s}:
  name: {{{{ .name }}}}-{s}
  {{{{- range $i, $item := .items }}}}
  - idx: {{{{ $i }}}}
    value: {{{{ printf "%s-%d-%v" $item.name $i $item.weight }}}}
    {{{{- if and $item.enabled (gt (len $item.tags) 1) }}}}
    tags: {{{{ index $item.tags 0 }}}},{{{{ index $item.tags 1 }}}}
    {{{{- else if $item.enabled }}}}
    tags: single
    {{{{- else }}}}
    tags: none
    {{{{- end }}}}
    {{{{- with $item.labels }}}}
    labels:{{{{ range $k, $v := . }}}} {{{{ $k }}}}={{{{ $v }}}}{{{{ end }}}}
    {{{{- end }}}}
  {{{{- end }}}}
{{{{- end }}}}
"#
        ));
    }
    for s in 0..SECTIONS {
        text.push_str(&format!("{{{{- template \"section-{s}\" . }}}}\n"));
    }
    text
}

fn data() -> Value {
    let items: Vec<Value> = (0..ITEMS)
        .map(|i| {
            let tags: Vec<Value> = (0..(i % 4))
                .map(|t| Value::from(format!("tag{t}")))
                .collect();
            let labels = Map::new();
            if i % 3 == 0 {
                labels.insert("app", Value::from(format!("app{i}")));
                labels.insert("tier", Value::str("backend"));
            }
            Value::Map(Map::from_entries([
                ("name", Value::from(format!("item{i}"))),
                ("weight", Value::Float(i as f64 * 1.5)),
                ("enabled", Value::Bool(i % 5 != 0)),
                ("tags", Value::List(List::new(tags))),
                ("labels", Value::Map(labels)),
            ]))
        })
        .collect();
    Value::Map(Map::from_entries([
        ("name", Value::str("bench")),
        ("items", Value::List(List::new(items))),
    ]))
}

fn median(mut samples: Vec<Duration>) -> Duration {
    samples.sort();
    samples[samples.len() / 2]
}

fn main() {
    let text = template_text();
    let data = data();
    let runs = 15;
    let mut parse_times = Vec::new();
    let mut exec_times = Vec::new();
    let mut output_len = 0;
    for _ in 0..runs {
        let start = Instant::now();
        let mut set = Templates::new(FuncMap::builtins());
        set.set_missing_key(MissingKey::Zero);
        set.parse("large", &text)
            .expect("benchmark template parses");
        parse_times.push(start.elapsed());
        let start = Instant::now();
        let out = set
            .execute("large", data.clone())
            .expect("benchmark template executes");
        exec_times.push(start.elapsed());
        output_len = out.len();
        if let Ok(path) = std::env::var("BENCH_OUTPUT") {
            std::fs::write(path, &out).expect("write BENCH_OUTPUT");
        }
    }
    println!(
        "gotemplate large_template: template {} bytes, output {} bytes, parse median {:.2} ms, execute median {:.2} ms ({runs} runs)",
        text.len(),
        output_len,
        median(parse_times).as_secs_f64() * 1e3,
        median(exec_times).as_secs_f64() * 1e3,
    );
}
