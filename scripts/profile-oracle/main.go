// Command profile-oracle is the oracle for `bosun profile list|dump|diff`.
//
// Istio removed `istioctl profile` in 1.24, the module proxy refuses every istio.io/istio version
// that still had it, so no istioctl with the command can be built here. This program is ours: it
// is compiled against the pinned istio.io/istio module (scripts/fetch-profile-oracle builds it the
// way scripts/fetch-istioctl builds istioctl) and runs
//
//   - the pinned Istio's own code for everything it still has: reading profiles
//     (manifests.BuiltinOrDir), layering (values.MapFromYaml, Map.MergeFrom, Map.SetSpecPaths,
//     Map.GetPath*), the multiple-IstioOperator check (manifest.ParseMultiple) and the
//     `--config-path` walk (tpath.GetPathContext, util.PathFromString); where the pinned step is
//     unexported, the few lines it takes are written here and the comment names the function;
//   - Istio 1.23's command shapes and output formats for the rest, as its
//     operator/cmd/mesh/profile-{list,dump,diff}.go, profile.go and shared.go had them: the flags,
//     the positional profile, YAML through sigs.k8s.io/yaml (the header laid on with a JSON merge
//     patch, as 1.23's prependHeader did), JSON indented by four spaces, `--set` flag lines sorted
//     bytewise, kylelemons/godebug's line diff, the error texts, and exit status 1 on errors and on
//     differing profiles (64 for bad flags, as istioctl's GetExitCode).
//
// What is dumped is the profile ← files ← --set layering of the pinned render.MergeInputs before
// its translateIstioOperatorToHelm: 1.23's dump printed the user's IstioOperator, not Helm values.
// 1.23 also sent that tree through its typed IstioOperator (which added `profile: default` and
// `metadata.creationTimestamp: null`); the pinned Istio keeps the tree untyped, and so does this.
//
// Deliberate differences from 1.23, each because 1.23's behaviour was a bug rather than a format:
//   - `profile list` prints to stdout. 1.23 printed it with cobra's cmd.Println, which writes to
//     stderr when no output writer is set; Istio fixed the same mistake in `profile diff`
//     (istio/istio#30375).
//   - `profile dump --set K=V` is accepted (1.23's dump had no --set); the flags are applied in
//     order, before `installPackagePath` (--manifests) and the positional profile, in the order
//     1.23's applyFlagAliases gave install's flags.
//   - Validation is not run: 1.23's dump validated with --force, which only wrote warnings to
//     stderr.
package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	jsonpatch "github.com/evanphx/json-patch/v5"
	"github.com/kylelemons/godebug/diff"
	"github.com/spf13/cobra"
	yamlv2 "gopkg.in/yaml.v2"
	"sigs.k8s.io/yaml"

	"istio.io/istio/manifests"
	"istio.io/istio/operator/pkg/manifest"
	"istio.io/istio/operator/pkg/tpath"
	"istio.io/istio/operator/pkg/util"
	"istio.io/istio/operator/pkg/values"
	pkgversion "istio.io/istio/pkg/version"
)

// istioctl's exit codes (istioctl/cmd/sysexits.go): 1 for a failed command, 64 for bad usage.
const (
	exitUnknownError   = 1
	exitIncorrectUsage = 64
)

// usageError marks cobra's flag errors, as istioctl's SetFlagErrorFunc does with CommandParseError.
type usageError struct{ error }

func main() {
	root := &cobra.Command{
		Use:          "profile-oracle",
		Short:        "istioctl 1.23's profile commands over the pinned Istio's merge code.",
		SilenceUsage: true,
	}
	root.SetFlagErrorFunc(func(_ *cobra.Command, e error) error { return usageError{e} })
	root.AddCommand(profileCmd())
	if err := root.Execute(); err != nil {
		var ue usageError
		if errors.As(err, &ue) || strings.Contains(err.Error(), "unknown command") {
			os.Exit(exitIncorrectUsage)
		}
		os.Exit(exitUnknownError)
	}
}

// profileCmd follows 1.23's operator/cmd/mesh/profile.go.
func profileCmd() *cobra.Command {
	pc := &cobra.Command{
		Use:   "profile",
		Short: "Commands related to Istio configuration profiles",
	}
	pc.AddCommand(profileListCmd(), profileDumpCmd(), profileDiffCmd())
	return pc
}

// addManifestsFlags: 1.23's `--charts` (deprecated) and `--manifests`/`-d`, one variable.
func addManifestsFlags(cmd *cobra.Command, manifestsPath *string) {
	cmd.PersistentFlags().StringVarP(manifestsPath, "charts", "", "", "Deprecated, use --manifests instead.")
	cmd.PersistentFlags().StringVarP(manifestsPath, "manifests", "d", "",
		"Specify a path to a directory of charts and profiles.")
}

// ---- profile list (1.23's profile-list.go) ----

func profileListCmd() *cobra.Command {
	var manifestsPath string
	cmd := &cobra.Command{
		Use:   "list",
		Short: "Lists available Istio configuration profiles",
		Args:  cobra.ExactArgs(0),
		RunE: func(cmd *cobra.Command, _ []string) error {
			profiles, err := listProfiles(manifestsPath)
			if err != nil {
				return err
			}
			// To stdout, not cmd.Println's stderr: see the package comment.
			out := cmd.OutOrStdout()
			if len(profiles) == 0 {
				fmt.Fprintln(out, "No profiles available.")
				return nil
			}
			fmt.Fprintln(out, "Istio configuration profiles:")
			sort.Strings(profiles)
			for _, p := range profiles {
				fmt.Fprintf(out, "    %s\n", p)
			}
			return nil
		},
	}
	addManifestsFlags(cmd, &manifestsPath)
	return cmd
}

// listProfiles follows 1.23's helm.ListProfiles/readProfiles over the pinned install package FS:
// every entry of profiles/ whose name ends in `.yaml`, without that suffix.
func listProfiles(manifestsPath string) ([]string, error) {
	entries, err := fs.ReadDir(manifests.BuiltinOrDir(manifestsPath), "profiles")
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		if name, ok := strings.CutSuffix(e.Name(), ".yaml"); ok {
			out = append(out, name)
		}
	}
	return out, nil
}

// ---- profile dump (1.23's profile-dump.go) ----

type dumpArgs struct {
	filenames     []string
	set           []string
	configPath    string
	outputFormat  string
	manifestsPath string
}

func profileDumpCmd() *cobra.Command {
	a := &dumpArgs{}
	cmd := &cobra.Command{
		Use:   "dump [<profile>]",
		Short: "Dumps an Istio configuration profile",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) > 1 {
				return fmt.Errorf("too many positional arguments")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			out, err := profileDump(args, a)
			if err != nil {
				return err
			}
			_, err = io.WriteString(cmd.OutOrStdout(), out)
			return err
		},
	}
	f := cmd.PersistentFlags()
	f.StringSliceVarP(&a.filenames, "filename", "f", nil, "Path to file containing IstioOperator custom resource")
	f.StringArrayVarP(&a.set, "set", "s", nil, "Override an IstioOperator value, e.g. --set values.global.hub=x")
	f.StringVarP(&a.configPath, "config-path", "p", "",
		"The path the root of the configuration subtree to dump e.g. components.pilot. By default, dump whole tree")
	f.StringVarP(&a.outputFormat, "output", "o", "yaml", "Output format: one of json|yaml|flags")
	addManifestsFlags(cmd, &a.manifestsPath)
	return cmd
}

func profileDump(args []string, a *dumpArgs) (string, error) {
	if len(args) == 1 && a.filenames != nil {
		return "", fmt.Errorf("cannot specify both profile name and filename flag")
	}
	switch a.outputFormat {
	case "json", "yaml", "flags":
	default:
		return "", fmt.Errorf("unknown output format: %s", a.outputFormat)
	}
	// 1.23's applyFlagAliases, then the positional profile.
	setFlags := append([]string{}, a.set...)
	if a.manifestsPath != "" {
		setFlags = append(setFlags, "installPackagePath="+a.manifestsPath)
	}
	if len(args) == 1 {
		setFlags = append(setFlags, "profile="+args[0])
	}

	merged, err := layerInputs(a.filenames, setFlags)
	if err != nil {
		return "", err
	}
	y, err := yaml.Marshal(merged)
	if err != nil {
		return "", err
	}
	ys, err := getConfigSubtree(string(y), "spec")
	if err != nil {
		return "", err
	}
	if a.configPath == "" {
		if ys, err = prependHeader(ys); err != nil {
			return "", err
		}
	} else if ys, err = getConfigSubtree(ys, a.configPath); err != nil {
		return "", err
	}
	return yamlToFormat(ys, a.outputFormat)
}

// layerInputs is the pinned render.MergeInputs (operator/pkg/render/manifest.go) up to and
// including `base.MergeFrom(userConfigBase)`, without a cluster: the files in order and the --set
// flags make the user's tree, which names the install package and the profile; the profile
// (over `default`) is the base, and the user's tree is merged over it. MergeInputs goes on to
// translateIstioOperatorToHelm, which profile dump never did.
func layerInputs(filenames, flags []string) (values.Map, error) {
	userConfigBase, err := values.MapFromJSON([]byte(`{
  "apiVersion": "install.istio.io/v1alpha1",
  "kind": "IstioOperator",
  "metadata": {},
  "spec": {}
}`))
	if err != nil {
		return nil, err
	}
	for i, fn := range filenames {
		var b []byte
		if fn == "-" {
			if i != len(filenames)-1 {
				return nil, fmt.Errorf("stdin is only allowed as the last filename")
			}
			b, err = io.ReadAll(os.Stdin)
		} else {
			b, err = os.ReadFile(strings.TrimSpace(fn))
		}
		if err != nil {
			return nil, err
		}
		if err := checkNoMultipleIOPs(string(b)); err != nil {
			return nil, err
		}
		m, err := values.MapFromYaml(b)
		if err != nil {
			return nil, err
		}
		// MergeInputs' "special hack to allow an empty spec to work".
		if m["spec"] == nil {
			delete(m, "spec")
		}
		userConfigBase.MergeFrom(m)
	}
	if err := userConfigBase.SetSpecPaths(flags...); err != nil {
		return nil, err
	}
	installPackagePath := userConfigBase.GetPathString("spec.installPackagePath")
	profile := userConfigBase.GetPathString("spec.profile")

	base, err := readProfile(installPackagePath, profile)
	if err != nil {
		return nil, err
	}
	// MergeInputs lays clusterSpecificSettings(client) here; with no cluster they are empty.
	if err := base.SetSpecPaths(hubTagOverlay()...); err != nil {
		return nil, err
	}
	base.MergeFrom(userConfigBase)
	return base, nil
}

// checkNoMultipleIOPs is the pinned render.checkNoMultipleIOPs.
func checkNoMultipleIOPs(s string) error {
	mfs, err := manifest.ParseMultiple(s)
	if err != nil {
		return fmt.Errorf("unable to parse file: %v", err)
	}
	if len(mfs) > 1 {
		return fmt.Errorf("contains multiple IstioOperator CRs, only one per file is supported")
	}
	return nil
}

// readProfile is the pinned render.readProfile: the `default` profile, with the named one (if
// another) merged over it.
func readProfile(path, profile string) (values.Map, error) {
	if profile == "" {
		profile = "default"
	}
	base, err := readProfileInternal(path, "default")
	if err != nil {
		return nil, err
	}
	if profile == "default" {
		return base, nil
	}
	top, err := readProfileInternal(path, profile)
	if err != nil {
		return nil, err
	}
	base.MergeFrom(top)
	return base, nil
}

// readProfileInternal is the pinned render.readProfileInternal.
func readProfileInternal(path, profile string) (values.Map, error) {
	f, err := manifests.BuiltinOrDir(path).Open(fmt.Sprintf("profiles/%v.yaml", profile))
	if err != nil {
		return nil, fmt.Errorf("profile %q not found: %v", profile, err)
	}
	defer f.Close()
	pb, err := io.ReadAll(f)
	if err != nil {
		return nil, err
	}
	return values.MapFromYaml(pb)
}

// hubTagOverlay is the pinned render.hubTagOverlay: the hub and tag stamped into a release build
// (none in this one, as in the pinned istioctl built by scripts/fetch-istioctl).
func hubTagOverlay() []string {
	hub, tag := pkgversion.DockerInfo.Hub, pkgversion.DockerInfo.Tag
	if hub != "unknown" && tag != "unknown" {
		return []string{"hub=" + hub, "tag=" + tag}
	}
	return nil
}

// getConfigSubtree is 1.23's tpath.GetConfigSubtree over the pinned tpath.GetPathContext: the
// YAML read into a map (sigs.k8s.io/yaml: numbers become float64), the node at the path found
// without creating anything (a missing last key reads as an empty map there), written back.
func getConfigSubtree(manifest, path string) (string, error) {
	root := make(map[string]any)
	if err := yaml.Unmarshal([]byte(manifest), &root); err != nil {
		return "", err
	}
	nc, _, err := tpath.GetPathContext(root, util.PathFromString(path), false)
	if err != nil {
		return "", err
	}
	out, err := yaml.Marshal(nc.Node)
	if err != nil {
		return "", err
	}
	return string(out), nil
}

// prependHeader is 1.23's: tpath.AddSpecRoot (a round trip through gopkg.in/yaml.v2), then
// util.OverlayYAML of that over the apiVersion/kind header (a JSON merge patch, which drops nulls).
func prependHeader(yml string) (string, error) {
	t := make(map[string]any)
	if err := yamlv2.Unmarshal([]byte(yml), &t); err != nil {
		return "", err
	}
	withSpec, err := yamlv2.Marshal(map[string]any{"spec": t})
	if err != nil {
		return "", err
	}
	return overlayYAML("\napiVersion: install.istio.io/v1alpha1\nkind: IstioOperator\n", string(withSpec))
}

// overlayYAML is 1.23's util.OverlayYAML.
func overlayYAML(base, overlay string) (string, error) {
	if strings.TrimSpace(base) == "" {
		return overlay, nil
	}
	if strings.TrimSpace(overlay) == "" {
		return base, nil
	}
	bj, err := yaml.YAMLToJSON([]byte(base))
	if err != nil {
		return "", fmt.Errorf("yamlToJSON error in base: %s\n%s", err, bj)
	}
	oj, err := yaml.YAMLToJSON([]byte(overlay))
	if err != nil {
		return "", fmt.Errorf("yamlToJSON error in overlay: %s\n%s", err, oj)
	}
	merged, err := jsonpatch.MergePatch(bj, oj)
	if err != nil {
		return "", fmt.Errorf("json merge error (%s) for base object: \n%s\n override object: \n%s", err, bj, oj)
	}
	my, err := yaml.JSONToYAML(merged)
	if err != nil {
		return "", fmt.Errorf("jsonToYAML error (%s) for merged object: \n%s", err, merged)
	}
	return string(my), nil
}

// yamlToFormat is 1.23's: YAML as is, JSON through yamlToPrettyJSON, flags one per line; each
// followed by a newline.
func yamlToFormat(y, format string) (string, error) {
	switch format {
	case "json":
		j, err := yamlToPrettyJSON(y)
		if err != nil {
			return "", err
		}
		return j + "\n", nil
	case "flags":
		f, err := yamlToFlags(y)
		if err != nil {
			return "", err
		}
		return strings.Join(f, "\n") + "\n", nil
	default:
		return y + "\n", nil
	}
}

// decodeJSONOf is the decoding 1.23's yamlToPrettyJSON and yamlToFlags share: YAML to JSON, then
// into a list or a map (by the first byte) as Go's encoding/json fills it.
func decodeJSONOf(yml string) (any, error) {
	ugly, err := yaml.YAMLToJSON([]byte(yml))
	if err != nil {
		return nil, err
	}
	var decoded any
	if len(ugly) > 0 && ugly[0] == '[' {
		decoded = make([]any, 0)
	} else {
		decoded = map[string]any{}
	}
	if err := json.Unmarshal(ugly, &decoded); err != nil {
		return nil, err
	}
	return decoded, nil
}

func yamlToPrettyJSON(yml string) (string, error) {
	decoded, err := decodeJSONOf(yml)
	if err != nil {
		return "", err
	}
	pretty, err := json.MarshalIndent(decoded, "", "    ")
	if err != nil {
		return "", err
	}
	return string(pretty), nil
}

// yamlToFlags is 1.23's: the tree below `spec` (when the node has one) as `path=value` lines.
func yamlToFlags(yml string) ([]string, error) {
	decoded, err := decodeJSONOf(yml)
	if err != nil {
		return nil, err
	}
	if d, ok := decoded.(map[string]any); ok {
		if v, ok := d["spec"]; ok {
			decoded = v
		}
	}
	flags := walk("", "", decoded)
	sort.Strings(flags)
	return flags, nil
}

// walk is 1.23's: keys joined with `.` (a `.` inside a key escaped), list items as `[N]`, strings
// `%q`, every other leaf `%v`; empty maps and lists give no line.
func walk(path, separator string, obj any) []string {
	switch v := obj.(type) {
	case map[string]any:
		var accum []string
		for key, vv := range v {
			component := strings.ReplaceAll(key, util.PathSeparator, util.EscapedPathSeparator)
			accum = append(accum, walk(path+separator+component, ".", vv)...)
		}
		return accum
	case []any:
		var accum []string
		for idx, vv := range v {
			accum = append(accum, walk(fmt.Sprintf("%s[%d]", path, idx), ".", vv)...)
		}
		return accum
	case string:
		return []string{fmt.Sprintf("%s=%q", path, v)}
	default:
		return []string{fmt.Sprintf("%s=%v", path, v)}
	}
}

// ---- profile diff (1.23's profile-diff.go) ----

func profileDiffCmd() *cobra.Command {
	var manifestsPath string
	cmd := &cobra.Command{
		Use:   "diff <profile|file1.yaml> <profile|file2.yaml>",
		Short: "Diffs two Istio configuration profiles",
		Args: func(_ *cobra.Command, args []string) error {
			if len(args) != 2 {
				return fmt.Errorf("diff requires two profiles")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			var setFlags []string
			if manifestsPath != "" {
				setFlags = append(setFlags, "installPackagePath="+manifestsPath)
			}
			different, err := profileDiff(args[0], args[1], setFlags, cmd.OutOrStdout())
			if err != nil {
				return err
			}
			if different {
				os.Exit(1)
			}
			return nil
		},
	}
	addManifestsFlags(cmd, &manifestsPath)
	return cmd
}

func profileDiff(profileA, profileB string, setFlags []string, w io.Writer) (bool, error) {
	a, err := profileTree(profileA, setFlags)
	if err != nil {
		return false, fmt.Errorf("could not read %q: %v", profileA, err)
	}
	b, err := profileTree(profileB, setFlags)
	if err != nil {
		return false, fmt.Errorf("could not read %q: %v", profileB, err)
	}
	d, err := yamlDiff(a, b)
	if err != nil {
		return false, err
	}
	if d == "" {
		fmt.Fprintln(w, "Profiles are identical")
		return false, nil
	}
	fmt.Fprintf(w, "The difference between profiles:\n%s", d)
	return true, nil
}

// profileTree is one operand of 1.23's diff (GenIOPFromProfile with no user file): a profile name
// read as the pinned readProfile reads it, or, for a path (1.23's util.IsFilePath: it holds `/` or
// `.`), 1.23's helm.GetProfileYAML: the file over the `default.yaml` beside it (unless it is that
// file), merged with the pinned MergeFrom. Then the compiled-in hub/tag and the --set flags.
func profileTree(profileOrPath string, setFlags []string) (values.Map, error) {
	installPackagePath := values.GetValueForSetFlag(setFlags, "installPackagePath")
	var tree values.Map
	var err error
	if strings.Contains(profileOrPath, "/") || strings.Contains(profileOrPath, ".") {
		tree, err = readProfileFile(profileOrPath)
	} else {
		tree, err = readProfile(installPackagePath, profileOrPath)
	}
	if err != nil {
		return nil, err
	}
	if err := tree.SetSpecPaths(hubTagOverlay()...); err != nil {
		return nil, err
	}
	if err := tree.SetSpecPaths(setFlags...); err != nil {
		return nil, err
	}
	return tree, nil
}

func readProfileFile(path string) (values.Map, error) {
	read := func(p string) (values.Map, error) {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, err
		}
		return values.MapFromYaml(b)
	}
	top, err := read(path)
	if err != nil {
		return nil, err
	}
	if filepath.Base(path) == "default.yaml" {
		return top, nil
	}
	base, err := read(filepath.Join(filepath.Dir(path), "default.yaml"))
	if err != nil {
		return nil, err
	}
	base.MergeFrom(top)
	return base, nil
}

// yamlDiff is 1.23's util.YAMLDiff for one document: both trees written as sigs.k8s.io/yaml
// writes a map read back from YAML, then godebug's line diff.
func yamlDiff(a, b values.Map) (string, error) {
	normalize := func(m values.Map) (string, error) {
		y, err := yaml.Marshal(m)
		if err != nil {
			return "", err
		}
		out := make(map[string]any)
		if err := yaml.Unmarshal(y, &out); err != nil {
			return "", err
		}
		y, err = yaml.Marshal(out)
		return string(y), err
	}
	ay, err := normalize(a)
	if err != nil {
		return "", err
	}
	by, err := normalize(b)
	if err != nil {
		return "", err
	}
	return diff.Diff(ay, by), nil
}
