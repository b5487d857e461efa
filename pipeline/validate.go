package pipeline

import (
	"io/fs"
	"os"
	"path/filepath"

	"helm.sh/helm/v3/pkg/strvals"
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/capreport/capreport/check"
)

// validate refuses, before anything renders, what helm template refuses
// as a usage error (a values file that does not exist, a --set it cannot
// parse) and limits that would stop every render.
func (s *Settings) validate(path, root string) error {
	for _, v := range s.Values {
		if !valuesFileExists(v, path, root) {
			return inputErrorf("values", "%s: not found in the working directory, PATH, the root or any chart directory under PATH", v)
		}
	}
	for flag, ids := range map[string][]string{"include": s.Include, "exclude": s.Exclude} {
		for _, id := range ids {
			if _, ok := check.Lookup(id); !ok {
				return inputErrorf(flag, "%q is not a check ID (capreport checks lists them)", id)
			}
		}
	}
	for _, kv := range s.Set {
		if err := strvals.ParseInto(kv, map[string]any{}); err != nil {
			return inputErrorf("set", "%q: %v", kv, err)
		}
	}
	if _, err := parseSourceMaps(s.Sources, root); err != nil {
		return err
	}
	if err := s.validateHelmFlags(); err != nil {
		return err
	}
	if s.RenderTimeout < 0 {
		return inputErrorf("render-timeout", "%s is negative", s.RenderTimeout)
	}
	if s.FetchTimeout < 0 {
		return inputErrorf("fetch-timeout", "%s is negative", s.FetchTimeout)
	}
	if s.RenderMemory != 0 && s.RenderMemory < MinRenderMemory {
		return inputErrorf("render-memory", "%s is below the %s a render worker needs to start", quantity(s.RenderMemory), quantity(MinRenderMemory))
	}
	return nil
}

// quantity writes bytes as a Kubernetes quantity, as the flag takes them.
func quantity(b int64) string { return resource.NewQuantity(b, resource.BinarySI).String() }

// valuesFileExists finds a command-line values file where render looks
// for it: as given (absolute, or relative to the working directory), else
// in PATH, the root, or a chart directory under PATH.
func valuesFileExists(v, path, root string) bool {
	if fileExists(v) || filepath.IsAbs(v) {
		return fileExists(v)
	}
	for _, dir := range []string{path, root} {
		if fileExists(filepath.Join(dir, v)) {
			return true
		}
	}
	found := false
	_ = filepath.WalkDir(path, func(p string, d fs.DirEntry, err error) error {
		switch {
		case found:
			return filepath.SkipAll
		case err != nil:
			return filepath.SkipDir
		case d.IsDir() && (d.Name() == ".git" || d.Name() == "node_modules"):
			return filepath.SkipDir
		case d.Name() == "Chart.yaml" && fileExists(filepath.Join(filepath.Dir(p), v)):
			found = true
		}
		return nil
	})
	return found
}

func fileExists(p string) bool {
	st, err := os.Stat(p)
	return err == nil && !st.IsDir()
}
