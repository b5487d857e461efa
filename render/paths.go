package render

import (
	"os"
	"path/filepath"
	"strings"

	"github.com/capreport/capreport/render/internal/repofs"
	"github.com/capreport/capreport/render/internal/yamldoc"
)

// repo is the scanned root (see repofs).
type repo = repofs.Repo

// checkTree holds a chart directory to repofs.CheckTree before Helm's
// loader reads it (the loader follows symlinks and reads every file,
// without a visited set), and refuses a values or Chart.yaml file that is
// an alias bomb, which the loader would expand.
func checkTree(r *repo, dir string) error {
	return r.CheckTree(dir, func(p string) error {
		if !isYAMLName(p) || strings.Contains(filepath.ToSlash(p), "/templates/") {
			return nil
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		if err := yamldoc.CheckAliases(data); err != nil {
			return &docError{file: r.Rel(p), err: err}
		}
		return nil
	})
}
