package helm

import (
	"fmt"
	"net/url"
	"strings"

	"helm.sh/helm/v3/pkg/strvals"
	sigsyaml "sigs.k8s.io/yaml"

	"github.com/capreport/capreport/render/internal/chartspec"
	"github.com/capreport/capreport/render/internal/repofs"
	"github.com/capreport/capreport/render/internal/yamldoc"
)

// ValuesFile is a value file, read.
type ValuesFile struct {
	Path string
	Data []byte
}

// MergeValueFiles merges value files in order, as Helm's
// values.Options.MergeValues does with -f files.
func MergeValueFiles(files []ValuesFile) (map[string]any, error) {
	base := map[string]any{}
	for _, f := range files {
		if _, err := url.Parse(f.Path); err != nil {
			return nil, err // as Helm's readFile, which takes a path for a URL
		}
		cur := map[string]any{}
		if err := sigsyaml.Unmarshal(f.Data, &cur); err != nil {
			return nil, fmt.Errorf("failed to parse %s: %w", f.Path, err)
		}
		base = chartspec.MergeMaps(base, cur)
	}
	return base, nil
}

// SetValues applies --set, then --set-string pairs, as MergeValues does.
func SetValues(vals map[string]any, set, setString []string) error {
	for _, s := range set {
		if err := strvals.ParseInto(s, vals); err != nil {
			return fmt.Errorf("failed parsing --set data: %w", err)
		}
	}
	for _, s := range setString {
		if err := strvals.ParseIntoString(s, vals); err != nil {
			return fmt.Errorf("failed parsing --set-string data: %w", err)
		}
	}
	return nil
}

// ReadValues reads a value file (a trusted one from anywhere its file
// system reaches) and refuses an alias bomb.
func ReadValues(r *repofs.Repo, p string, trusted bool) (ValuesFile, error) {
	read := r.ReadFile
	if trusted {
		read = r.ReadTrusted
	}
	data, err := read(p)
	if err != nil {
		return ValuesFile{Path: p}, err
	}
	return ValuesFile{Path: p, Data: data}, yamldoc.CheckAliases(data)
}

// HookOf is an object's helm.sh/hook annotation.
func HookOf(doc map[string]any) string {
	md, _ := doc["metadata"].(map[string]any)
	ann, _ := md["annotations"].(map[string]any)
	h, _ := ann["helm.sh/hook"].(string)
	return h
}

// IsTestHook reports helm.sh/hook: test, test-success, test-failure.
func IsTestHook(doc map[string]any) bool {
	for _, h := range strings.Split(HookOf(doc), ",") {
		if strings.HasPrefix(strings.TrimSpace(h), "test") {
			return true
		}
	}
	return false
}
