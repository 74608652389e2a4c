// Command oracle runs the cases of ../exec.txt through Go's own text/template and reports (or,
// with -update, rewrites) the "want" sections. It is the source of truth for the golden file.
//
//	go run . [-update] ../exec.txt
package main

import (
	"bytes"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"strings"
	"text/template"
)

type section struct {
	kind, arg, body string
}

type tcase struct {
	name     string
	sections []section
}

func parseFile(text string) (header string, cases []*tcase) {
	var cur *tcase
	var sec *section
	var lines []string
	// A case ends with one blank separator line, which belongs to no section.
	endCase := func() {
		if n := len(lines); n > 0 && lines[n-1] == "" {
			lines = lines[:n-1]
		}
	}
	flush := func() {
		if sec != nil {
			sec.body = strings.Join(lines, "\n")
			cur.sections = append(cur.sections, *sec)
		}
		sec = nil
		lines = nil
	}
	var head []string
	for _, line := range strings.Split(text, "\n") {
		switch {
		case strings.HasPrefix(line, "### "):
			if cur != nil {
				endCase()
				flush()
			}
			cur = &tcase{name: line[4:]}
			cases = append(cases, cur)
		case cur != nil && strings.HasPrefix(line, "--- "):
			flush()
			kind, arg, _ := strings.Cut(line[4:], " ")
			sec = &section{kind: kind, arg: arg}
		case cur == nil:
			head = append(head, line)
		default:
			lines = append(lines, line)
		}
	}
	if cur != nil {
		endCase()
		flush()
	}
	return strings.TrimRight(strings.Join(head, "\n"), "\n"), cases
}

func convert(v any) any {
	switch x := v.(type) {
	case json.Number:
		s := string(x)
		if !strings.ContainsAny(s, ".eE") {
			var n int
			fmt.Sscan(s, &n)
			return n
		}
		f, _ := x.Float64()
		return f
	case map[string]any:
		for k, e := range x {
			x[k] = convert(e)
		}
	case []any:
		for i, e := range x {
			x[i] = convert(e)
		}
	}
	return v
}

func run(c *tcase) string {
	var t *template.Template
	funcs := template.FuncMap{
		"fail":   func(s string) (string, error) { return "", fmt.Errorf("%s", s) },
		"id":     func(x any) any { return x },
		"i64":    func(x int64) int64 { return x },
		"u8":     func(x uint8) uint8 { return x },
		"f64":    func(x float64) float64 { return x },
		"str":    func(x string) string { return x },
		"boolf":  func(x bool) bool { return x },
		"nilf":   func() any { return nil },
		"list":   func(x ...any) []any { return x },
		"strs":   func(x ...string) []string { return x },
		"typeof": func(x any) string { return fmt.Sprintf("%T", x) },
		"cat":    func(a string, b ...string) string { return a + "|" + strings.Join(b, ",") },
		"mlist":  func(x []any) int { return len(x) },
		"fnv":    func() any { return func() string { return "" } },
		"include": func(name string, data any) (string, error) {
			var b strings.Builder
			err := t.ExecuteTemplate(&b, name, data)
			return b.String(), err
		},
		"tpl": func(text string, data any) (string, error) {
			c, err := t.Clone()
			if err != nil {
				return "", err
			}
			c, err = c.New("tpl").Parse(text)
			if err != nil {
				return "", err
			}
			var b strings.Builder
			err = c.Execute(&b, data)
			return b.String(), err
		},
	}
	t = template.New("gotpl").Funcs(funcs)
	exec := "t"
	var data any
	for _, s := range c.sections {
		switch s.kind {
		case "mk":
			t.Option("missingkey=" + strings.TrimSpace(s.body))
		case "delims":
			l, r, _ := strings.Cut(strings.TrimSpace(s.body), " ")
			t.Delims(l, r)
		case "data":
			d := json.NewDecoder(bytes.NewReader([]byte(s.body)))
			d.UseNumber()
			if err := d.Decode(&data); err != nil {
				return "BAD DATA: " + err.Error()
			}
			data = convert(data)
		case "exec":
			exec = strings.TrimSpace(s.arg)
		}
	}
	for _, s := range c.sections {
		name := ""
		switch s.kind {
		case "template":
			name = "t"
		case "file":
			name = s.arg
		default:
			continue
		}
		if _, err := t.New(name).Parse(s.body); err != nil {
			return "PARSE:" + err.Error()
		}
	}
	var b strings.Builder
	if err := t.ExecuteTemplate(&b, exec, data); err != nil {
		return "EXEC:" + err.Error()
	}
	return "OUT:" + b.String()
}

func main() {
	update := flag.Bool("update", false, "rewrite the want sections")
	flag.Parse()
	path := flag.Arg(0)
	raw, err := os.ReadFile(path)
	if err != nil {
		panic(err)
	}
	header, cases := parseFile(string(raw))
	bad := 0
	var out strings.Builder
	out.WriteString(header)
	for _, c := range cases {
		got := run(c)
		fmt.Fprintf(&out, "\n\n### %s", c.name)
		found := false
		for _, s := range c.sections {
			if s.kind == "want" {
				found = true
				if s.body != got {
					bad++
					fmt.Printf("MISMATCH %s\n  file: %q\n  go:   %q\n", c.name, s.body, got)
				}
				s.body = got
			}
			arg := ""
			if s.arg != "" {
				arg = " " + s.arg
			}
			fmt.Fprintf(&out, "\n--- %s%s\n%s", s.kind, arg, s.body)
		}
		if !found {
			bad++
			fmt.Printf("NEW %s\n  go:   %q\n", c.name, got)
			fmt.Fprintf(&out, "\n--- want\n%s", got)
		}
	}
	out.WriteString("\n")
	if *update {
		if err := os.WriteFile(path, []byte(out.String()), 0o644); err != nil {
			panic(err)
		}
	}
	fmt.Printf("%d cases, %d differ from Go\n", len(cases), bad)
}
