// The Go side of crates/gotemplate/benches/large_template.rs: the same generated template and
// data, parsed and executed by Go's text/template, median of each phase.
package main

import (
	"fmt"
	"os"
	"sort"
	"strings"
	"text/template"
	"time"
)

const sections = 400
const items = 60

func templateText() string {
	var b strings.Builder
	for s := 0; s < sections; s++ {
		fmt.Fprintf(&b, `{{- define "section-%d" }}
section-%d:
  name: {{ .name }}-%d
  {{- range $i, $item := .items }}
  - idx: {{ $i }}
    value: {{ printf "%%s-%%d-%%v" $item.name $i $item.weight }}
    {{- if and $item.enabled (gt (len $item.tags) 1) }}
    tags: {{ index $item.tags 0 }},{{ index $item.tags 1 }}
    {{- else if $item.enabled }}
    tags: single
    {{- else }}
    tags: none
    {{- end }}
    {{- with $item.labels }}
    labels:{{ range $k, $v := . }} {{ $k }}={{ $v }}{{ end }}
    {{- end }}
  {{- end }}
{{- end }}
`, s, s, s)
	}
	for s := 0; s < sections; s++ {
		fmt.Fprintf(&b, "{{- template \"section-%d\" . }}\n", s)
	}
	return b.String()
}

func data() map[string]interface{} {
	list := []interface{}{}
	for i := 0; i < items; i++ {
		tags := []interface{}{}
		for t := 0; t < i%4; t++ {
			tags = append(tags, fmt.Sprintf("tag%d", t))
		}
		labels := map[string]interface{}{}
		if i%3 == 0 {
			labels["app"] = fmt.Sprintf("app%d", i)
			labels["tier"] = "backend"
		}
		list = append(list, map[string]interface{}{
			"name":    fmt.Sprintf("item%d", i),
			"weight":  float64(i) * 1.5,
			"enabled": i%5 != 0,
			"tags":    tags,
			"labels":  labels,
		})
	}
	return map[string]interface{}{"name": "bench", "items": list}
}

func median(d []time.Duration) time.Duration {
	sort.Slice(d, func(i, j int) bool { return d[i] < d[j] })
	return d[len(d)/2]
}

func main() {
	text := templateText()
	vals := data()
	runs := 15
	var parse, exec []time.Duration
	outLen := 0
	for r := 0; r < runs; r++ {
		start := time.Now()
		t, err := template.New("large").Option("missingkey=zero").Parse(text)
		if err != nil {
			panic(err)
		}
		parse = append(parse, time.Since(start))
		var b strings.Builder
		start = time.Now()
		if err := t.Execute(&b, vals); err != nil {
			panic(err)
		}
		exec = append(exec, time.Since(start))
		outLen = b.Len()
		if p := os.Getenv("BENCH_OUTPUT"); p != "" {
			os.WriteFile(p, []byte(b.String()), 0o644)
		}
	}
	fmt.Printf("go text/template large_template: template %d bytes, output %d bytes, parse median %.2f ms, execute median %.2f ms (%d runs)\n",
		len(text), outLen, float64(median(parse).Microseconds())/1e3, float64(median(exec).Microseconds())/1e3, runs)
}
