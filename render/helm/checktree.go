package helm

import (
	"path/filepath"
	"strings"

	"github.com/capreport/capreport/render/internal/repofs"
	"github.com/capreport/capreport/render/internal/yamldoc"
)

// CheckTree holds a chart directory to repofs.CheckTree before Helm's
// loader reads it (the loader follows symlinks and reads every file,
// without a visited set), and refuses a values or Chart.yaml file that is
// an alias bomb, which the loader would expand.
func CheckTree(r *repofs.Repo, dir string) error {
	return r.CheckTree(dir, func(p string) error {
		if !isYAMLName(p) || strings.Contains(filepath.ToSlash(p), "/templates/") {
			return nil
		}
		data, err := r.ReadFile(p)
		if err != nil {
			return err
		}
		if err := yamldoc.CheckAliases(data); err != nil {
			return &yamldoc.DocError{File: r.Rel(p), Err: err}
		}
		return nil
	})
}

// isYAMLName reports whether a file name ends in .yaml or .yml.
func isYAMLName(name string) bool {
	ext := strings.ToLower(filepath.Ext(name))
	return ext == ".yaml" || ext == ".yml"
}
