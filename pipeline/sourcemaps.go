package pipeline

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/capreport/capreport/render"
)

// parseSourceMaps reads --source NAME=PATH flags: PATH, from the working
// directory, must be a directory inside the repository root, since
// capreport reads nothing outside it (pass --root with a directory that
// holds both checkouts).
func parseSourceMaps(flags []string, root string) ([]render.SourceMap, error) {
	var out []render.SourceMap
	for _, f := range flags {
		name, dir, ok := strings.Cut(f, "=")
		if !ok || strings.TrimSpace(name) == "" || dir == "" {
			return nil, inputErrorf("source", "%q is not NAME=PATH", f)
		}
		rel, err := rootRelativeDir(dir, root)
		if err != nil {
			return nil, inputErrorf("source", "%s: %v", f, err)
		}
		out = append(out, render.SourceMap{Name: strings.TrimSpace(name), Path: rel})
	}
	return out, nil
}

// rootRelativeDir is dir as a slash path relative to root; an error when
// it is not a directory inside root.
func rootRelativeDir(dir, root string) (string, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		abs = real
	}
	fi, err := os.Stat(abs)
	if err != nil || !fi.IsDir() {
		return "", fmt.Errorf("%s is not a directory", dir)
	}
	realRoot, err := filepath.Abs(root)
	if err != nil {
		return "", err
	}
	if r, err := filepath.EvalSymlinks(realRoot); err == nil {
		realRoot = r
	}
	rel, err := filepath.Rel(realRoot, abs)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return "", fmt.Errorf("%s is outside the repository root %s; capreport reads nothing outside it (pass --root with a directory that holds both)", dir, root)
	}
	return filepath.ToSlash(rel), nil
}

// sourceMaps are the validated --source flags (validate has refused bad
// ones).
func (s *Settings) sourceMaps(root string) []render.SourceMap {
	out, _ := parseSourceMaps(s.Sources, root)
	return out
}
