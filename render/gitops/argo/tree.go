package argo

import (
	"io/fs"
	"path/filepath"

	"github.com/capreport/capreport/render/internal/repofs"
)

// maxTreeEntries bounds the listing the git generators match against.
const maxTreeEntries = 200000

// repoTree is the repository as the ApplicationSet git generators see it,
// listed once per run.
type repoTree struct {
	r           *repofs.Repo
	dirs, files []string
	listed      bool
}

func (t *repoTree) list() {
	if t.listed {
		return
	}
	t.listed = true
	n := 0
	_ = t.r.WalkDir(t.r.Root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if n++; n > maxTreeEntries {
			return filepath.SkipAll
		}
		if p == t.r.Root {
			return nil
		}
		if d.IsDir() {
			if d.Name() == ".git" {
				return filepath.SkipDir
			}
			t.dirs = append(t.dirs, t.r.Rel(p))
			return nil
		}
		if d.Type().IsRegular() {
			t.files = append(t.files, t.r.Rel(p))
		}
		return nil
	})
}

func (t *repoTree) Dirs() []string { t.list(); return t.dirs }

func (t *repoTree) Files() []string { t.list(); return t.files }

func (t *repoTree) ReadFile(rel string) ([]byte, error) {
	return t.r.ReadFile(t.r.Abs(rel))
}
