// Command gen prints what real Go code does, for the manifest crate's data-driven tests and for
// its strategic-merge-patch type table. See README.md for the commands.
package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"sort"
	"strings"

	yaml2 "gopkg.in/yaml.v2"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utiljson "k8s.io/apimachinery/pkg/util/json"
	"k8s.io/apimachinery/pkg/util/strategicpatch"
	forkedjson "k8s.io/apimachinery/third_party/forked/golang/json"
	"k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/yaml"

	"istio.io/istio/operator/pkg/apis"
	"istio.io/istio/operator/pkg/manifest"
	"istio.io/istio/operator/pkg/tpath"
	"istio.io/istio/operator/pkg/util"
)

func main() {
	if len(os.Args) < 2 {
		fail("usage: gen schema | gen smp IN.yaml OUTDIR | gen overlay IN.yaml OUTDIR")
	}
	switch os.Args[1] {
	case "schema":
		printSchema()
	case "smp":
		runCases(os.Args[2], os.Args[3], smpCase)
	case "overlay":
		runCases(os.Args[2], os.Args[3], overlayCase)
	default:
		fail("unknown mode " + os.Args[1])
	}
}

func fail(msg string) {
	fmt.Fprintln(os.Stderr, msg)
	os.Exit(2)
}

// The kinds istioctl applies k8s settings to (postprocess.go): the component's Deployment or
// DaemonSet, its Service, HorizontalPodAutoscaler and PodDisruptionBudget.
var roots = []schema.GroupVersionKind{
	{Group: "apps", Version: "v1", Kind: "Deployment"},
	{Group: "apps", Version: "v1", Kind: "DaemonSet"},
	{Group: "", Version: "v1", Kind: "Service"},
	{Group: "autoscaling", Version: "v2", Kind: "HorizontalPodAutoscaler"},
	{Group: "policy", Version: "v1", Kind: "PodDisruptionBudget"},
}

type typeEntry struct {
	Kind   string  `json:"kind"`
	Name   string  `json:"name,omitempty"`
	Elem   *int    `json:"elem,omitempty"`
	Fields [][]any `json:"fields,omitempty"`
}

// printSchema walks the Go types scheme.Scheme.New gives for each root kind and prints, for every
// reachable type, its reflect kind and name and (structs) every JSON field with the type,
// patchStrategy and patchMergeKey that the forked encoding/json lookup strategicpatch uses returns.
func printSchema() {
	ids := map[reflect.Type]int{}
	var entries []*typeEntry
	var visit func(t reflect.Type) int
	visit = func(t reflect.Type) int {
		if id, ok := ids[t]; ok {
			return id
		}
		id := len(entries)
		ids[t] = id
		e := &typeEntry{Kind: t.Kind().String(), Name: t.Name()}
		entries = append(entries, e)
		switch t.Kind() {
		case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
			el := visit(t.Elem())
			e.Elem = &el
		case reflect.Struct:
			for _, name := range jsonNames(t) {
				ft, strategies, key, err := forkedjson.LookupPatchMetadataForStruct(t, name)
				if err != nil {
					fail(fmt.Sprintf("%s.%s: %v", t, name, err))
				}
				e.Fields = append(e.Fields, []any{name, visit(ft), strings.Join(strategies, ","), key})
			}
		}
		return id
	}
	out := map[string]any{}
	rootIDs := map[string]int{}
	for _, gvk := range roots {
		obj, err := scheme.Scheme.New(gvk)
		if err != nil {
			fail(err.Error())
		}
		rootIDs[gvk.GroupVersion().String()+"/"+gvk.Kind] = visit(reflect.TypeOf(obj).Elem())
	}
	// Every kind the scheme knows, so that a kind outside the table can be told apart from one
	// scheme.Scheme.New refuses.
	var known []string
	for gvk := range scheme.Scheme.AllKnownTypes() {
		known = append(known, gvk.GroupVersion().String()+"/"+gvk.Kind)
	}
	sort.Strings(known)
	out["known"] = known
	out["scheme"] = scheme.Scheme.Name()
	out["roots"] = rootIDs
	out["types"] = entries
	b, err := json.Marshal(out)
	if err != nil {
		fail(err.Error())
	}
	// One type per line keeps diffs of the table readable.
	s := strings.ReplaceAll(string(b), `},{"kind"`, "},\n{\"kind\"")
	fmt.Println(s)
}

// jsonNames lists the JSON field names of a struct the way encoding/json sees them (embedded
// structs without a name are flattened, "-" is skipped); the authoritative facts for each name
// come from forkedjson.LookupPatchMetadataForStruct.
func jsonNames(t reflect.Type) []string {
	var out []string
	seen := map[string]bool{}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name := strings.Split(tag, ",")[0]
		if f.Anonymous && name == "" {
			ft := f.Type
			if ft.Kind() == reflect.Pointer {
				ft = ft.Elem()
			}
			if ft.Kind() == reflect.Struct {
				for _, n := range jsonNames(ft) {
					if !seen[n] {
						seen[n] = true
						out = append(out, n)
					}
				}
				continue
			}
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		if !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	return out
}

type caseIn struct {
	Name     string          `json:"name"`
	Kind     string          `json:"kind,omitempty"`
	Original json.RawMessage `json:"original"`
	Patch    json.RawMessage `json:"patch,omitempty"`
	Patches  json.RawMessage `json:"patches,omitempty"`
}

// runCases reads a YAML list of case inputs and writes one JSON case file per input into outDir.
func runCases(in, outDir string, run func(c caseIn) map[string]any) {
	y, err := os.ReadFile(in)
	if err != nil {
		fail(err.Error())
	}
	j, err := yaml.YAMLToJSON(y)
	if err != nil {
		fail(err.Error())
	}
	var cases []caseIn
	if err := json.Unmarshal(j, &cases); err != nil {
		fail(err.Error())
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		fail(err.Error())
	}
	names := map[string]bool{}
	for _, c := range cases {
		if c.Name == "" || names[c.Name] {
			fail("missing or duplicate case name " + c.Name)
		}
		names[c.Name] = true
		res := run(c)
		res["name"] = c.Name
		var buf bytes.Buffer
		enc := json.NewEncoder(&buf)
		enc.SetEscapeHTML(false)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res); err != nil {
			fail(err.Error())
		}
		if err := os.WriteFile(filepath.Join(outDir, c.Name+".json"), buf.Bytes(), 0o644); err != nil {
			fail(err.Error())
		}
	}
	fmt.Fprintf(os.Stderr, "%d cases written to %s\n", len(cases), outDir)
}

func parseKind(s string) schema.GroupVersionKind {
	parts := strings.Split(s, "/")
	switch len(parts) {
	case 2:
		return schema.GroupVersionKind{Version: parts[0], Kind: parts[1]}
	case 3:
		return schema.GroupVersionKind{Group: parts[0], Version: parts[1], Kind: parts[2]}
	}
	fail("bad kind " + s)
	return schema.GroupVersionKind{}
}

// smpCase does what postprocess.go does per k8s patch: scheme.Scheme.New for the object's kind,
// then strategicpatch.StrategicMergePatch; the result is decoded as unstructured decodes JSON
// (integers int64, other numbers float64), which is how istioctl holds it afterwards.
func smpCase(c caseIn) (res map[string]any) {
	gvk := parseKind(c.Kind)
	res = map[string]any{
		"kind":     map[string]string{"group": gvk.Group, "version": gvk.Version, "kind": gvk.Kind},
		"original": c.Original,
		"patch":    c.Patch,
	}
	defer func() {
		if r := recover(); r != nil {
			fail(fmt.Sprintf("case %s: Go panics: %v", c.Name, r))
		}
	}()
	typed, err := scheme.Scheme.New(gvk)
	if err != nil {
		res["error"] = err.Error()
		return res
	}
	out, err := strategicpatch.StrategicMergePatch(c.Original, c.Patch, typed)
	if err != nil {
		res["error"] = err.Error()
		return res
	}
	var obj map[string]any
	if err := utiljson.Unmarshal(out, &obj); err != nil {
		fail(err.Error())
	}
	res["expected"] = obj
	return res
}

// yaml2Tree builds the tree yaml.v2 gives applyPatches for the object: map[interface{}]interface{}
// maps, int for integer literals, float64 for the other numbers.
func yaml2Tree(v any) any {
	switch v := v.(type) {
	case map[string]any:
		m := map[any]any{}
		for k, e := range v {
			m[k] = yaml2Tree(e)
		}
		return m
	case []any:
		l := make([]any, len(v))
		for i, e := range v {
			l[i] = yaml2Tree(e)
		}
		return l
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return int(i)
		}
		f, err := v.Float64()
		if err != nil {
			fail(err.Error())
		}
		return f
	}
	return v
}

// overlayCase is operator/pkg/render/postprocess.go applyPatches, with the object given as the
// tree yaml.v2 would decode it into and the patches decoded as istioctl decodes the
// IstioOperator (encoding/json into apis.Patch). The per-patch errors that applyPatches collects
// and then drops are reported as "skipped".
func overlayCase(c caseIn) (res map[string]any) {
	res = map[string]any{"original": c.Original, "patches": c.Patches}
	defer func() {
		if r := recover(); r != nil {
			fail(fmt.Sprintf("case %s: Go panics: %v", c.Name, r))
		}
	}()
	dec := json.NewDecoder(bytes.NewReader(c.Original))
	dec.UseNumber()
	var raw map[string]any
	if err := dec.Decode(&raw); err != nil {
		fail(err.Error())
	}
	bo := yaml2Tree(raw).(map[any]any)
	var patches []apis.Patch
	if err := json.Unmarshal(c.Patches, &patches); err != nil {
		fail(err.Error())
	}
	skipped := []string{}
	for _, p := range patches {
		inc, _, err := tpath.GetPathContext(bo, util.PathFromString(p.Path), true)
		if err != nil {
			skipped = append(skipped, err.Error())
			continue
		}
		if err := tpath.WritePathContext(inc, p.Value); err != nil {
			skipped = append(skipped, err.Error())
		}
	}
	oy, err := yaml2.Marshal(bo)
	if err != nil {
		res["error"] = err.Error()
		return res
	}
	m, err := manifest.FromYaml(oy)
	if err != nil {
		res["error"] = err.Error()
		return res
	}
	res["expected"] = m.Object
	res["skipped"] = skipped
	return res
}
