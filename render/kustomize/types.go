package kustomize

import (
	"errors"
	"path/filepath"
	"sync"

	"sigs.k8s.io/kustomize/kyaml/filesys"

	"github.com/capreport/capreport/render/internal/repofs"
)

// Rewrite is what krusty reads rewritten: CRDs as stubs, objects
// annotated with their file.
type Rewrite struct{ Stub, Annotate bool }

// Rewritten is what an FS rewrote in one build: Stubbed, some CRD;
// Unsure, an object of a file read annotated was left without.
type Rewritten struct{ Stubbed, Unsure bool }

// An FS is the filesystem krusty sees: the repository's, read-only,
// confined to the root (after evaluating symlinks), with the size limit and
// the YAML alias budget applied to every file read, plus an overlay of
// in-memory files (rewritten kustomizations, inflated Helm charts). The
// repository is read through its Repo only; krusty's clones of remote
// bases (clones.go) are on the disk, whatever the repository's file
// system. Every refusal is recorded so that it can become a precise
// finding even when krusty wraps the error.
type FS struct {
	r       *repofs.Repo
	disk    filesys.FileSystem // krusty's clones only
	mem     filesys.FileSystem
	overlay map[string][]byte // by real absolute path

	mu         sync.Mutex
	violations []error
	// Clones lets krusty read and remove its own git clones of remote
	// bases (--fetch); see clones.go.
	Clones bool
	// RewriteFile, when set, says which repository files krusty reads
	// rewritten as Rewrite says (kustread); Rewrote says what was.
	RewriteFile func(real string) bool
	Rewrite     Rewrite
	rewrote     Rewritten
	// Memo, when set, keeps what reading each file cost for the
	// process's other builds.
	Memo *ReadMemo
}

var _ filesys.FileSystem = (*FS)(nil)

var errReadOnly = errors.New("capreport renders read-only")

// NewFS is an FS over r, with the in-memory files of overlay (by real
// absolute path).
func NewFS(r *repofs.Repo, overlay map[string][]byte) *FS {
	fs := &FS{r: r, disk: filesys.MakeFsOnDisk(), mem: filesys.MakeFsInMemory(), overlay: overlay}
	for p, data := range overlay {
		_ = fs.mem.MkdirAll(filepath.Dir(p))
		_ = fs.mem.WriteFile(p, data)
	}
	return fs
}

func (fs *FS) violate(err error) error {
	fs.mu.Lock()
	fs.violations = append(fs.violations, err)
	fs.mu.Unlock()
	return err
}
