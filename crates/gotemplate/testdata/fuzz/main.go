package main
import ("fmt";"os";"strings";"text/template")
func main() {
	raw, _ := os.ReadFile(os.Args[1])
	for _, text := range strings.Split(string(raw), "\x00") {
		funcs := template.FuncMap{
			"fail":   func(s string) (string, error) { return "", fmt.Errorf("%s", s) },
			"id":     func(x any) any { return x },
			"str":    func(x string) string { return x },
			"list":   func(x ...any) []any { return x },
			"typeof": func(x any) string { return fmt.Sprintf("%T", x) },
		}
		t := template.New("gotpl").Funcs(funcs)
		data := map[string]any{"a": "A", "b": map[string]any{"c": "C"}, "l": []any{"x", "y"}, "n": nil}
		var res string
		if _, err := t.New("t").Parse(text); err != nil {
			res = "PARSE:" + err.Error()
		} else {
			var b strings.Builder
			if err := t.ExecuteTemplate(&b, "t", data); err != nil {
				res = "EXEC:" + err.Error()
			} else {
				res = "OUT:" + b.String()
			}
		}
		fmt.Print(res + "\x00")
	}
}
